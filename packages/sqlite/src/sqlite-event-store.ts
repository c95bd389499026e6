import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { EventLogError, type EventStore } from "@agentloop/core";
import { checkAppend, parseEventLog, type RunSummary, type StoredEvent, summarize } from "@agentloop/core/store";
import Database from "better-sqlite3";

/** The version of the table layout, kept in SQLite's `user_version`; a newer file is refused. */
export const SQLITE_SCHEMA_VERSION = 1;

// One row per event. `data` is the event's JSON without the columns beside it (type, seq, at).
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    at TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  ) STRICT;
  PRAGMA user_version = ${SQLITE_SCHEMA_VERSION};
`;

/** Options of `SqliteEventStore`. */
export interface SqliteEventStoreOptions {
  /** How long to wait for another connection's write lock before failing with `SQLITE_BUSY`, in milliseconds (default 5000). */
  readonly timeout?: number;
}

interface Row {
  readonly seq: number;
  readonly type: string;
  readonly at: string;
  readonly data: string;
}

/**
 * Runs' event logs in one SQLite file (better-sqlite3), in WAL mode with `synchronous = FULL`:
 * one row per event, each append its own immediate transaction that checks the event's `seq` is the
 * log's length, so a resolved append is on disk and a crash never leaves a torn row. Readers in
 * other connections or processes see every committed event and never block the writer. The work
 * is synchronous (better-sqlite3 has no async API): every method does it on the calling thread and
 * returns a settled promise, as `EventStore` asks; a failure is a rejection, never a throw. A row
 * that is corrupt (written by something else) is reported by `read`, `append` refuses to extend
 * such a log, and `repair` drops the row when it is the last one. `":memory:"` gives a private store without WAL that dies with the object.
 */
export class SqliteEventStore implements EventStore {
  readonly filename: string;
  readonly #db: Database.Database;
  /** Validated length of each run this object appended to, checked against the row count on each append. */
  readonly #lengths = new Map<string, number>();
  readonly #rows: Database.Statement<[string], Row>;
  readonly #count: Database.Statement<[string], number>;
  readonly #runIds: Database.Statement<[], string>;
  readonly #insert: Database.Statement<[string, number, string, string, string]>;
  readonly #delete: Database.Statement<[string, number]>;

  constructor(filename: string, options: SqliteEventStoreOptions = {}) {
    this.filename = filename;
    if (filename !== ":memory:" && filename !== "") mkdirSync(dirname(filename), { recursive: true });
    this.#db = new Database(filename, { timeout: options.timeout ?? 5000 });
    try {
      this.#db.pragma("journal_mode = WAL");
      this.#db.pragma("synchronous = FULL");
      this.#migrate();
    } catch (error) {
      this.#db.close();
      throw error;
    }
    this.#rows = this.#db.prepare<[string], Row>(
      "SELECT seq, type, at, data FROM events WHERE run_id = ? ORDER BY seq",
    );
    this.#count = this.#db.prepare<[string], number>("SELECT COUNT(*) FROM events WHERE run_id = ?").pluck();
    this.#runIds = this.#db.prepare<[], string>("SELECT DISTINCT run_id FROM events ORDER BY run_id").pluck();
    this.#insert = this.#db.prepare("INSERT INTO events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)");
    this.#delete = this.#db.prepare("DELETE FROM events WHERE run_id = ? AND seq = ?");
  }

  async append(runId: string, event: StoredEvent): Promise<void> {
    this.#db.transaction(() => this.#append(runId, event)).immediate();
  }

  async read(runId: string): Promise<StoredEvent[]> {
    return this.#decode(runId, this.#rows.all(runId));
  }

  /** Every run with a `run.started`, by run id; a broken run is summarized from its intact events. */
  async list(): Promise<RunSummary[]> {
    const summaries: RunSummary[] = [];
    for (const runId of this.#runIds.all()) {
      const summary = summarize(runId, this.#readIntact(runId));
      if (summary !== null) summaries.push(summary);
    }
    return summaries;
  }

  /** Deletes a corrupt last row, keeping every event before it; returns how many rows were deleted (0 or 1). A corrupt row before the last is left alone and reported. */
  async repair(runId: string): Promise<number> {
    return this.#db.transaction(() => this.#repair(runId)).immediate();
  }

  /** Closes the database file; the store cannot be used afterwards. */
  close(): void {
    this.#db.close();
  }

  #migrate(): void {
    const version = this.#db.pragma("user_version", { simple: true });
    if (typeof version !== "number" || version > SQLITE_SCHEMA_VERSION) {
      throw new Error(
        `${this.filename} holds event store schema version ${String(version)}; this @agentloop/sqlite reads up to ${SQLITE_SCHEMA_VERSION}`,
      );
    }
    if (version < SQLITE_SCHEMA_VERSION) this.#db.transaction(() => this.#db.exec(SCHEMA)).immediate();
  }

  #append(runId: string, event: StoredEvent): void {
    const count = this.#count.get(runId) ?? 0;
    // Another connection may have written since: then the log is read (and checked) again.
    const length = this.#lengths.get(runId) === count ? count : this.#decode(runId, this.#rows.all(runId)).length;
    checkAppend(runId, length, event);
    const { seq, type, at, ...payload } = event;
    this.#insert.run(runId, seq, type, at, JSON.stringify(payload));
    this.#lengths.set(runId, length + 1);
  }

  #readIntact(runId: string): readonly StoredEvent[] {
    try {
      return this.#decode(runId, this.#rows.all(runId));
    } catch (error) {
      if (error instanceof EventLogError) return error.intact;
      throw error;
    }
  }

  #repair(runId: string): number {
    const rows = this.#rows.all(runId);
    try {
      this.#decode(runId, rows);
      return 0;
    } catch (error) {
      const last = rows.length - 1;
      const broken = rows[last];
      if (!(error instanceof EventLogError) || error.position !== last || error.intact.length !== last || !broken) {
        throw error;
      }
      this.#delete.run(runId, broken.seq);
      this.#lengths.delete(runId);
      return 1;
    }
  }

  /** Rows to events, checked by core's `parseEventLog`; the columns win over keys of the same name in `data`. */
  #decode(runId: string, rows: readonly Row[]): StoredEvent[] {
    const values: unknown[] = [];
    for (const [position, row] of rows.entries()) {
      const payload = parseData(row.data);
      if (typeof payload === "string") throw this.#broken(runId, position, row, payload, values);
      // The keys in the order they were written: the log's hash chain is computed over that JSON.
      const { type: _type, seq: _seq, at: _at, ...rest } = payload;
      values.push({ seq: row.seq, at: row.at, type: row.type, ...rest });
    }
    return parseEventLog(runId, values);
  }

  #broken(runId: string, position: number, row: Row, problem: string, before: readonly unknown[]): EventLogError {
    const intact = parseEventLog(runId, before);
    return new EventLogError(
      `run '${runId}': event ${position} (the row with seq ${row.seq} in ${this.filename}) has data that ${problem}; the ${intact.length} events before it are intact (SqliteEventStore.repair deletes a broken last row)`,
      { runId, position, intact },
    );
  }
}

function parseData(data: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    return `is not valid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "is not a JSON object";
  return value as Record<string, unknown>;
}
