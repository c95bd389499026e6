import { EventLogError } from "@agentloop/core";
import { newLockRecord } from "@agentloop/core/lock-file";
import type { PgQueryable } from "./pg-types.js";

/** This process's PID namespace, once known: a holder's is named when it is another. */
let here: string | null | undefined;

interface OwnerRow {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  readonly pid_namespace: string | null;
}

/**
 * One writer per run, across processes and machines: the writer holds a session advisory lock of
 * the server, keyed by the schema and the run, on its own connection; the server frees it when
 * that connection ends, however the process ended. The `locks` table says who holds it (pid, host,
 * since), for the error another writer gets; a row whose lock is free is only history, replaced by
 * the next writer.
 */
export class PostgresLocks {
  readonly #schema: string;
  readonly #label: string;

  constructor(schema: string, label: string) {
    this.#schema = schema;
    this.#label = label;
  }

  /** The advisory lock's key for `runId`, as SQL over parameter `$n`. */
  key(n: number): string {
    return `hashtextextended('${this.#schema}/' || $${n}, 0)`;
  }

  /** Takes the run on `session` and says so in the locks table; returns the token, or the error naming the holder. */
  async take(session: PgQueryable, runId: string): Promise<string | EventLogError> {
    const taken = await session.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${this.key(1)}) AS ok`, [runId]);
    if (taken.rows[0]?.ok !== true) return this.refusal(session, runId);
    const mine = newLockRecord();
    await session.query(
      `INSERT INTO ${this.#schema}.locks (run_id, pid, host, since, token, boot, pid_namespace, backend_pid)
       VALUES ($1, $2, $3, $4, $5, $6, $7, pg_backend_pid())
       ON CONFLICT (run_id) DO UPDATE SET pid = $2, host = $3, since = $4, token = $5, boot = $6, pid_namespace = $7,
         backend_pid = pg_backend_pid()`,
      [runId, mine.pid, mine.host, mine.since, mine.token, mine.boot ?? null, mine.pidNamespace ?? null],
    );
    return mine.token;
  }

  /** Gives the run up on the session that holds it. */
  async release(session: PgQueryable, runId: string, token: string): Promise<void> {
    await session.query(`DELETE FROM ${this.#schema}.locks WHERE run_id = $1 AND token = $2`, [runId, token]);
    await session.query(`SELECT pg_advisory_unlock(${this.key(1)})`, [runId]);
  }

  /** The error for a writer that meets the run held by another session, naming the holder its row names. */
  async refusal(db: PgQueryable, runId: string): Promise<EventLogError> {
    const owner = (
      await db.query<OwnerRow>(`SELECT pid, host, since, pid_namespace FROM ${this.#schema}.locks WHERE run_id = $1`, [
        runId,
      ])
    ).rows[0];
    const lead = `run '${runId}' is being written elsewhere`;
    const where = `the locks table of ${this.#label}`;
    here ??= newLockRecord().pidNamespace ?? null;
    const namespace =
      owner?.pid_namespace != null && owner.pid_namespace !== here ? ` in PID namespace ${owner.pid_namespace}` : "";
    const who =
      owner === undefined
        ? `a session of the server that has not yet said who it is (${where})`
        : `process ${owner.pid}${namespace} on host '${owner.host}' since ${owner.since} (${where})`;
    return new EventLogError(
      `${lead}: by ${who}; wait until that process ends the run, or stop it (the server frees its lock when its connection ends)`,
      { runId, position: 0 },
    );
  }
}
