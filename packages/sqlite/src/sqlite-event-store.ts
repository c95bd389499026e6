import { isUtf8 } from "node:buffer";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { EventLogError, type EventStore, type RunLock } from "@agentloop/core";
import {
  type BlobSource,
  checkAppend,
  checkPrune,
  commitAppendGroup,
  lastBrokenRow,
  loggedEvent,
  parseEventLog,
  type RunSummary,
  type SpendLedger,
  type StoredEvent,
  summarize,
  type WaitingAppend,
} from "@agentloop/core/store";
import { openDatabase, type SqliteDatabase, type SqliteStatement, sqliteError } from "./sqlite-driver.js";
import { checkHeader, checkLayout } from "./sqlite-layout.js";
import { SqliteLocks } from "./sqlite-locks.js";
import { SqliteSpendLedger } from "./sqlite-spending.js";

export { SQLITE_APPLICATION_ID, SQLITE_SCHEMA_VERSION } from "./layout-ids.js";

/** Options of `SqliteEventStore`. */
export interface SqliteEventStoreOptions {
  /** How long to wait for another connection's write lock before failing with `SQLITE_BUSY`, in milliseconds (default 5000). */
  readonly timeout?: number;
  /**
   * Opens an existing file for reading only: nothing is written (no table, no `user_version`, no
   * switch to WAL), and a file that is not an agentloop event log is refused. Writes reject.
   */
  readonly readonly?: boolean;
}

interface Row {
  readonly seq: number;
  readonly type: string;
  readonly at: string;
  /** The column's bytes (a Buffer or a Uint8Array, by driver), decoded here strictly as UTF-8. */
  readonly data: Uint8Array;
}

/**
 * Runs' event logs in one SQLite file (Node's `node:sqlite`, or better-sqlite3 on Node 20), in WAL mode with `synchronous = FULL`: one
 * row per event, holding the event's JSON as written. Appends are committed in groups: every
 * append made while the event loop turns (from any number of runs) goes into one immediate
 * transaction that checks each event's `seq` against its log's end, and each append resolves only
 * once that transaction is committed, hence on disk; a crash never leaves a torn row. Readers in
 * other connections or processes see every committed event and never block the writer. One writer
 * per run: `acquire` takes the run in the file's `locks` table (a dead process's lock on this host
 * is taken over), and an append from another store object meanwhile is refused. A row that is
 * corrupt (written by something else) is reported by `read`, `append` refuses to extend such a
 * log, and `repair` drops the row when it is the last one. `":memory:"` gives a private store
 * without WAL that dies with the object. The bytes of an image or file part are kept once per run
 * in the `blobs` table, by their SHA-256, in the transaction that inserts the event referring to
 * them; `read` checks them against their hash.
 */
export class SqliteEventStore implements EventStore {
  readonly filename: string;
  readonly readonly: boolean;
  /** The SQLite it runs on: Node's built-in `node:sqlite` where Node has it (22.13 and later, without a flag), else better-sqlite3. */
  readonly driver: "node:sqlite" | "better-sqlite3";
  /** Owners' spending, for spending ceilings: the file's `spending` table (see `SqliteSpendLedger`). */
  readonly spending: SpendLedger;
  readonly #db: SqliteDatabase;
  /** Validated length of each run this object appended to; an append re-checks it against the log's last seq. */
  readonly #lengths = new Map<string, number>();
  /** Runs this object holds the lock of, by token. */
  readonly #held = new Map<string, string>();
  #waiting: WaitingAppend[] = [];
  readonly #rows: SqliteStatement<Row>;
  readonly #lastSeq: SqliteStatement<{ readonly seq: number | null }>;
  readonly #runIds: SqliteStatement<{ readonly run_id: string }>;
  readonly #insert: SqliteStatement<never>;
  readonly #delete: SqliteStatement<never>;
  readonly #deleteRun: SqliteStatement<never>;
  /** Null for a file of a layout before 4, opened read-only: it has no blobs. */
  readonly #blob: SqliteStatement<{ readonly data: Uint8Array }> | null;
  readonly #insertBlob: SqliteStatement<never> | null;
  readonly #locks: SqliteLocks | null;

  constructor(filename: string, options: SqliteEventStoreOptions = {}) {
    this.filename = filename;
    this.readonly = options.readonly === true;
    const onDisk = filename !== ":memory:" && filename !== "";
    if (onDisk) checkHeader(filename);
    if (onDisk && !this.readonly) mkdirSync(dirname(filename), { recursive: true });
    this.#db = openDatabase(filename, { timeout: options.timeout ?? 5000, readonly: this.readonly });
    this.driver = this.#db.driver;
    let version: number;
    try {
      version = checkLayout(this.#db, filename, !this.readonly);
      if (!this.readonly) {
        this.#db.exec("PRAGMA journal_mode = WAL");
        this.#db.exec("PRAGMA synchronous = FULL");
      }
    } catch (error) {
      this.#db.close();
      throw error;
    }
    this.#rows = this.#db.prepare<Row>(
      "SELECT seq, type, at, CAST(data AS BLOB) AS data FROM events WHERE run_id = ? ORDER BY seq",
    );
    // An index lookup: the append's check costs the same at any log length.
    this.#lastSeq = this.#db.prepare("SELECT MAX(seq) AS seq FROM events WHERE run_id = ?");
    this.#runIds = this.#db.prepare("SELECT DISTINCT run_id FROM events ORDER BY run_id");
    this.#insert = this.#db.prepare("INSERT INTO events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)");
    this.#delete = this.#db.prepare("DELETE FROM events WHERE run_id = ? AND seq = ?");
    this.#deleteRun = this.#db.prepare("DELETE FROM events WHERE run_id = ?");
    this.#locks = version >= 3 ? new SqliteLocks(this.#db, filename) : null;
    this.spending = new SqliteSpendLedger(this.#db, () => this.#writable());
    const blobs = version >= 4;
    this.#blob = blobs ? this.#db.prepare("SELECT data FROM blobs WHERE run_id = ? AND sha256 = ?") : null;
    this.#insertBlob = blobs
      ? this.#db.prepare("INSERT OR IGNORE INTO blobs (run_id, sha256, data) VALUES (?, ?, ?)")
      : null;
  }

  async append(runId: string, event: StoredEvent): Promise<void> {
    this.#writable();
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(() => this.#commit());
      this.#waiting.push({ runId, event, resolve, reject });
    });
  }

  async read(runId: string): Promise<StoredEvent[]> {
    return this.#decode(runId, this.#rows.all(runId));
  }

  /** Every run with a `run.started`, by run id; a broken run is summarized from its intact events. */
  async list(): Promise<RunSummary[]> {
    const summaries: RunSummary[] = [];
    for (const { run_id: runId } of this.#runIds.all()) {
      const summary = summarize(runId, this.#readIntact(runId));
      if (summary !== null) summaries.push(summary);
    }
    return summaries;
  }

  async acquire(runId: string): Promise<RunLock> {
    const locks = this.#writable();
    // A run this object holds is refused too: its row names this process, which is alive.
    const token = this.#db.immediate(() => locks.take(runId));
    this.#held.set(runId, token);
    this.#lengths.delete(runId);
    return {
      runId,
      release: async () => {
        if (this.#held.get(runId) !== token) return;
        this.#held.delete(runId);
        if (this.#db.open) locks.release(runId, token);
      },
    };
  }

  /**
   * Replaces the run's rows by its anchor's in one immediate transaction: another connection reads
   * the old log or the new one. Refused, changing nothing, while another writer holds the run.
   */
  async prune(runId: string, anchor: StoredEvent, length: number): Promise<void> {
    const locks = this.#writable();
    this.#db.immediate(() => {
      const locked = locks.check(runId, this.#held.get(runId));
      if (locked !== null) throw locked;
      const last = this.#lastSeq.get(runId)?.seq ?? null;
      checkPrune(runId, last === null ? 0 : last + 1, length, anchor);
      const logged = loggedEvent(anchor);
      for (const [sha256, bytes] of logged.blobs) this.#insertBlob?.run(runId, sha256, bytes);
      this.#deleteRun.run(runId);
      this.#insert.run(runId, anchor.seq, anchor.type, anchor.at, JSON.stringify(logged.event));
    });
    this.#lengths.set(runId, 1);
  }

  /** Deletes a corrupt last row, keeping every event before it; returns how many rows were deleted (0 or 1). A corrupt row before the last is left alone and reported. */
  async repair(runId: string): Promise<number> {
    const locks = this.#writable();
    return this.#db.immediate(() => {
      const locked = locks.check(runId, this.#held.get(runId));
      if (locked !== null) throw locked;
      return this.#repair(runId);
    });
  }

  /** Commits appends still waiting, releases the runs it holds, then closes the database file; the store cannot be used afterwards. */
  close(): void {
    if (this.#db.open) {
      if (this.#waiting.length > 0) this.#commit();
      for (const [runId, token] of this.#held) this.#locks?.release(runId, token);
    }
    this.#held.clear();
    this.#db.close();
  }

  /** One transaction for every waiting append; each is told once it is committed (or why it was refused). */
  #commit(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    if (waiting.length === 0) return;
    commitAppendGroup(waiting, this.#lengths, (lengths) =>
      this.#db.immediate(() => waiting.map(({ runId, event }) => this.#appendOne(runId, event, lengths))),
    );
  }

  /** Inserts one event inside the group's transaction; returns `null`, or why it was refused (nothing inserted). */
  #appendOne(runId: string, event: StoredEvent, lengths: Map<string, number>): unknown {
    try {
      // A run this object holds needs no look at the locks table: only the seq check below.
      const locked = this.#held.has(runId) ? null : (this.#locks?.check(runId, undefined) ?? null);
      if (locked !== null) return locked;
      const last = this.#lastSeq.get(runId)?.seq ?? null;
      const end = last === null ? 0 : last + 1;
      const known = lengths.get(runId) ?? this.#lengths.get(runId);
      // Another connection may have written since: then the log is read (and checked) again.
      const length = known === end ? end : this.#decode(runId, this.#rows.all(runId)).length;
      checkAppend(runId, length, event);
      const logged = loggedEvent(event);
      for (const [sha256, bytes] of logged.blobs) this.#insertBlob?.run(runId, sha256, bytes);
      this.#insert.run(runId, event.seq, event.type, event.at, JSON.stringify(logged.event));
      lengths.set(runId, length + 1);
      return null;
    } catch (error) {
      // A refused insert fails that event alone; any other database error fails the whole group.
      if (sqliteError(error) === "other") throw error;
      return error;
    }
  }

  #writable(): SqliteLocks {
    if (this.readonly || this.#locks === null) {
      throw new Error(`${this.filename} was opened read-only: it cannot be written`);
    }
    return this.#locks;
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
      const broken = lastBrokenRow(error, rows);
      this.#delete.run(runId, broken.seq);
      this.#lengths.delete(runId);
      return 1;
    }
  }

  /** Rows to events, checked by core's `parseEventLog`. */
  #decode(runId: string, rows: readonly Row[]): StoredEvent[] {
    const values: unknown[] = [];
    for (const [position, row] of rows.entries()) {
      const event = eventOf(row);
      if (typeof event === "string") throw this.#broken(runId, position, row, event, values);
      values.push(event);
    }
    return parseEventLog(runId, values, this.#blobs(runId));
  }

  #blobs(runId: string): BlobSource {
    return {
      where: `the blobs table of ${this.filename}`,
      read: (sha256) => this.#blob?.get(runId, sha256)?.data,
    };
  }

  #broken(runId: string, position: number, row: Row, problem: string, before: readonly unknown[]): EventLogError {
    const intact = parseEventLog(runId, before, this.#blobs(runId));
    return new EventLogError(
      `run '${runId}': event ${position} (the row with seq ${row.seq} in ${this.filename}) has data that ${problem}; the ${intact.length} events before it are intact (SqliteEventStore.repair deletes a broken last row)`,
      { runId, position, intact },
    );
  }
}

/**
 * The event a row holds, or what is wrong with it. A row of layout 2 holds the whole event, which
 * must agree with its columns; a row of layout 1 holds the rest beside them, and is rebuilt with
 * the keys in the order the journal writes them (`seq`, `at`, `type`, then the event's own).
 */
function eventOf(row: Row): Record<string, unknown> | string {
  if (!isUtf8(row.data)) return "is not valid UTF-8";
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength).toString("utf8"));
  } catch (error) {
    return `is not valid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "is not a JSON object";
  const data = value as Record<string, unknown>;
  if (Object.hasOwn(data, "seq")) {
    return data.seq === row.seq && data.type === row.type && data.at === row.at
      ? data
      : "does not agree with the row's seq, type and at columns";
  }
  const { type: _type, at: _at, ...payload } = data;
  if (row.at.includes("\uFFFD") || row.type.includes("\uFFFD")) return "sits beside columns that are not valid UTF-8";
  return { seq: row.seq, at: row.at, type: row.type, ...payload };
}
