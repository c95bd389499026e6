import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describeSweepKill } from "@agentloop/store-testkit/processes";
import { afterAll } from "vitest";
import { locationOf, madeSchemas, storeAt } from "./schemas.js";

// The sweep test (store-testkit's sweep-kill.ts) on one Postgres schema shared by the services. They
// load the BUILT core and the BUILT dist/index.js of this package, so build both first.

const PACKAGE = join(import.meta.dirname, "..");
const schemas = madeSchemas();
afterAll(() => schemas.drop());

describeSweepKill("PostgresEventStore", {
  storeModule: pathToFileURL(join(import.meta.dirname, "fixtures", "sweep-store.mjs")).href,
  location: () => locationOf(schemas.make()),
  openStore: storeAt,
  builtPackages: [{ name: "@agentloop/postgres", dir: PACKAGE }],
});
