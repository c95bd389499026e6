import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describeCrashTests } from "@agentloop/store-testkit/processes";
import { SqliteEventStore } from "../src/index.js";
import { openRaw } from "./raw-sqlite.js";

// The crash tests (packages/store-testkit/src/processes/crash-suite.ts) on the SQLite store. The child loads the BUILT
// core and the BUILT dist/index.js of this package by absolute path, so build both first.

const PACKAGE = join(import.meta.dirname, "..");

/** The run's rows as stored, every column, one JSON text per row: what resume must keep byte for byte. */
function rows(filename: string, runId: string): string[] {
  if (!existsSync(filename)) return [];
  const db = openRaw(filename, { readonly: true });
  try {
    return db
      .prepare<Record<string, unknown>>("SELECT * FROM events WHERE run_id = ? ORDER BY seq")
      .all(runId)
      .map((row) => JSON.stringify(row));
  } finally {
    db.close();
  }
}

describeCrashTests("SqliteEventStore", {
  kind: "sqlite",
  openStore: (filename) => new SqliteEventStore(filename),
  rawLog: rows,
  childEnv: { CRASH_SQLITE_MODULE: pathToFileURL(join(PACKAGE, "dist", "index.js")).href },
  builtPackages: [{ name: "@agentloop/sqlite", dir: PACKAGE }],
});
