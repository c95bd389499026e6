import { setTimeout as sleep } from "node:timers/promises";
import { EventLogError } from "@agentloop/core";
import { newLockRecord } from "@agentloop/core/lock-file";
import type { PgQueryable } from "./pg-types.js";

/** This process's PID namespace, once known: a holder's is named when it is another. */
let here: string | null | undefined;

interface HolderRow {
  readonly backend: number;
  readonly mode: string;
  readonly pid: number | null;
  readonly host: string | null;
  readonly since: string | null;
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

  /**
   * The error for a writer that meets the run held by another session, naming the holder its row
   * names: the row of the session that holds the server's lock now (a holder writes it just after
   * taking the lock, so a row that is missing or older is waited for a moment).
   */
  async refusal(db: PgQueryable, runId: string): Promise<EventLogError> {
    let found: HolderRow | undefined;
    for (let tries = 0; tries < 100; tries++) {
      found = (await db.query<HolderRow>(this.#holder, [runId])).rows[0];
      if (found === undefined || found.mode !== "ExclusiveLock" || found.pid !== null) break;
      await sleep(10);
    }
    here ??= newLockRecord().pidNamespace ?? null;
    const where = `the locks table of ${this.#label}`;
    let who: string;
    if (found === undefined) {
      who = "a session of the server that let it go a moment ago (try again)";
    } else if (found.mode !== "ExclusiveLock") {
      who = "another store appending to it without holding it";
    } else if (found.pid === null) {
      who = `a session of the server that has not said who it is (backend ${found.backend}; ${where})`;
    } else {
      const namespace =
        found.pid_namespace !== null && found.pid_namespace !== here ? ` in PID namespace ${found.pid_namespace}` : "";
      who = `process ${found.pid}${namespace} on host '${found.host}' since ${found.since} (${where})`;
    }
    return new EventLogError(
      `run '${runId}' is being written elsewhere: by ${who}; wait until that process ends the run, or stop it (the server frees its lock when its connection ends)`,
      { runId, position: 0 },
    );
  }

  /** The session holding the run's advisory lock now (from pg_locks), with its row in the locks table if it wrote one. */
  get #holder(): string {
    return `SELECT l.pid AS backend, l.mode, k.pid, k.host, k.since, k.pid_namespace
      FROM pg_locks l
      LEFT JOIN ${this.#schema}.locks k ON k.run_id = $1 AND k.backend_pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((l.classid::bigint << 32) | l.objid::bigint) = ${this.key(1)}
      ORDER BY l.mode = 'ExclusiveLock' DESC
      LIMIT 1`;
  }
}
