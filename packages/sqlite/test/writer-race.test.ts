import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describeWriterRace } from "@agentloop/store-testkit/processes";
import { SqliteEventStore } from "../src/index.js";

// The two-process resume race (packages/store-testkit/src/processes/writer-race.ts) on the SQLite store. The children
// load the BUILT core and the BUILT dist/index.js of this package, so build both first.

const PACKAGE = join(import.meta.dirname, "..");

describeWriterRace("SqliteEventStore", {
  childEnv: { RACE_STORE: "sqlite", RACE_SQLITE_MODULE: pathToFileURL(join(PACKAGE, "dist", "index.js")).href },
  storePath: (directory) => join(directory, "runs.db"),
  openStore: (path) => new SqliteEventStore(path),
});
