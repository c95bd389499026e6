import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { newLockRecord } from "@agentloop/core/lock-file";
import { describeLockProcesses } from "@agentloop/store-testkit/processes";
import { SqliteEventStore } from "../src/index.js";
import { openRaw } from "./raw-sqlite.js";

// The lock tests with real processes (packages/store-testkit/src/processes/lock-suite.ts) on the SQLite store. The
// child loads the BUILT core and the BUILT dist/index.js of this package, so build both first.

const PACKAGE = join(import.meta.dirname, "..");

describeLockProcesses("SqliteEventStore", {
  childEnv: { LOCK_STORE: "sqlite", LOCK_SQLITE_MODULE: pathToFileURL(join(PACKAGE, "dist", "index.js")).href },
  storePath: (directory) => join(directory, "runs.db"),
  openStore: (path) => new SqliteEventStore(path),
  plantStaleLock(path, runId, pid) {
    new SqliteEventStore(path).close(); // the file and its tables exist
    const db = openRaw(path);
    const { host, since, token, boot, pidNamespace } = newLockRecord();
    db.prepare(
      "INSERT OR REPLACE INTO locks (run_id, pid, host, since, token, boot, pid_namespace) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ).run(runId, pid, host, since, token, boot ?? null, pidNamespace ?? null);
    db.close();
  },
});
