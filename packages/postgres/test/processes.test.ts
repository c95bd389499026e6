import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { newLockRecord } from "@agentloop/core/lock-file";
import {
  describeCrashTests,
  describeLockProcesses,
  describeQuestionCrash,
  describeWriterRace,
} from "@agentloop/store-testkit/processes";
import { afterAll } from "vitest";
import type { PostgresEventStore } from "../src/index.js";
import { locationOf, madeSchemas, onServer, schemaOf, storeAt } from "./schemas.js";

// slow: each suite starts and kills processes on a real PostgreSQL.

// The suites with real processes (packages/store-testkit/src/processes) on the Postgres store: each
// child loads the BUILT core and the BUILT dist/index.js of this package, so build both first.

const PACKAGE = join(import.meta.dirname, "..");
const MODULE = pathToFileURL(join(PACKAGE, "dist", "index.js")).href;
const schemas = madeSchemas();
afterAll(() => schemas.drop());

/** A new schema's location, whatever the temp directory the suite made. */
const newStore = () => locationOf(schemas.make());

describeCrashTests("PostgresEventStore", {
  kind: "postgres",
  storePath: newStore,
  openStore: storeAt,
  // The run's rows as stored, every column, one JSON text per row: what resume must keep byte for byte.
  rawLog: async (location, runId) => {
    const schema = schemaOf(location);
    const exists = await onServer(
      `SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'events'`,
      [schema],
    );
    if (exists.length === 0) return [];
    const rows = await onServer(`SELECT * FROM ${schema}.events WHERE run_id = $1 ORDER BY seq`, [runId]);
    return rows.map((row) => JSON.stringify(row));
  },
  childEnv: { CRASH_POSTGRES_MODULE: MODULE },
  builtPackages: [{ name: "@agentloop/postgres", dir: PACKAGE }],
});

describeLockProcesses("PostgresEventStore", {
  childEnv: { LOCK_STORE: "postgres", LOCK_POSTGRES_MODULE: MODULE },
  storePath: newStore,
  openStore: storeAt,
  liveness: "session",
  async plantStaleLock(location, runId, pid) {
    const store = storeAt(location);
    await store.read(runId); // the schema and its tables exist
    await store.close();
    const { host, since, token, boot, pidNamespace } = newLockRecord();
    await onServer(
      `INSERT INTO ${schemaOf(location)}.locks (run_id, pid, host, since, token, boot, pid_namespace, backend_pid)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 0)
       ON CONFLICT (run_id) DO UPDATE SET pid = $2, token = $5`,
      [runId, pid, host, since, token, boot ?? null, pidNamespace ?? null],
    );
  },
});

describeWriterRace("PostgresEventStore", {
  childEnv: { RACE_STORE: "postgres", RACE_POSTGRES_MODULE: MODULE },
  storePath: newStore,
  openStore: storeAt,
});

describeQuestionCrash("PostgresEventStore", {
  childEnv: { QUESTION_STORE: "postgres", QUESTION_POSTGRES_MODULE: MODULE },
  storePath: newStore,
  openStore: (location) => storeAt(location) as PostgresEventStore,
});
