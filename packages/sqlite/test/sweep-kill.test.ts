import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describeSweepKill } from "@agentloop/store-testkit/processes";
import { SqliteEventStore } from "../src/index.js";

// The sweep test (store-testkit's sweep-kill.ts) on one SQLite file shared by the services. They load
// the BUILT core and the BUILT dist/index.js of this package, so build both first.

const PACKAGE = join(import.meta.dirname, "..");

describeSweepKill("SqliteEventStore", {
  storeModule: pathToFileURL(join(import.meta.dirname, "fixtures", "sweep-store.mjs")).href,
  location: (scratch) => join(scratch, "runs.db"),
  openStore: (location) => new SqliteEventStore(location),
  builtPackages: [{ name: "@agentloop/sqlite", dir: PACKAGE }],
});
