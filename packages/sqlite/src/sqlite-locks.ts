import type { EventLogError } from "@agentloop/core";
import { isStale, type LockRecord, newLockRecord, runLockedError } from "@agentloop/core/lock-file";
import type { SqliteDatabase, SqliteStatement } from "./sqlite-driver.js";

interface LockRow {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  readonly token: string;
  readonly boot: string | null;
  readonly pidNamespace: string | null;
}

/**
 * The `locks` table of a store file: one row per run that a writer holds, with the same rule as
 * the JSONL store's lock files: a row whose process died on this host, boot and PID namespace is
 * taken over, one from anywhere else is refused. Every method runs inside the caller's transaction.
 */
export class SqliteLocks {
  readonly #filename: string;
  readonly #select: SqliteStatement<LockRow>;
  readonly #upsert: SqliteStatement<never>;
  readonly #delete: SqliteStatement<never>;

  constructor(db: SqliteDatabase, filename: string) {
    this.#filename = filename;
    this.#select = db.prepare<LockRow>(
      "SELECT pid, host, since, token, boot, pid_namespace AS pidNamespace FROM locks WHERE run_id = ?",
    );
    this.#upsert = db.prepare(
      "INSERT OR REPLACE INTO locks (run_id, pid, host, since, token, boot, pid_namespace) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.#delete = db.prepare("DELETE FROM locks WHERE run_id = ? AND token = ?");
  }

  /** Takes the run for this process (replacing a dead owner's row) and returns the token; throws while a live owner holds it. */
  take(runId: string): string {
    const error = this.check(runId, undefined);
    if (error !== null) throw error;
    const mine = newLockRecord();
    this.#upsert.run(runId, mine.pid, mine.host, mine.since, mine.token, mine.boot ?? null, mine.pidNamespace ?? null);
    return mine.token;
  }

  /** The error for a writer that does not hold the run (`token`) while a live owner does, or `null`. */
  check(runId: string, token: string | undefined): EventLogError | null {
    const row = this.#select.get(runId);
    if (row === undefined || row.token === token) return null;
    const { boot, pidNamespace, ...rest } = row;
    const owner: LockRecord = {
      ...rest,
      ...(boot === null ? {} : { boot }),
      ...(pidNamespace === null ? {} : { pidNamespace }),
    };
    if (isStale(owner)) return null;
    return runLockedError(
      runId,
      owner,
      `locks table of ${this.#filename}`,
      `delete its row by hand (DELETE FROM locks WHERE run_id = '${runId}')`,
    );
  }

  /** Gives the run up, if `token` still holds it. */
  release(runId: string, token: string): void {
    this.#delete.run(runId, token);
  }
}
