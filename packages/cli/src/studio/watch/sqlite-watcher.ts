import { createRequire } from "node:module";
import { messageOf } from "../../cli-error.js";
import { RunSet, type StoreWatcher } from "./run-set.js";

interface Statement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface Connection {
  prepare(sql: string): Statement;
  close(): void;
}
interface Row {
  readonly seq: number;
  readonly type: string;
  readonly at: string;
  readonly data: string;
}

/** Milliseconds between two looks at the file's `data_version`. */
export const SQLITE_TICK_MS = 200;

/**
 * Watches a SQLite store through a read-only connection of its own. Each tick asks SQLite's
 * `PRAGMA data_version`, which changes only when another connection committed: nothing else is
 * read while it stays the same. When it moves, one `MAX(seq)` per run (an index lookup) says
 * which logs grew, and only their new rows (`seq >=` the events already folded) are read.
 */
export class SqliteWatcher implements StoreWatcher {
  readonly runs = new RunSet((runId) => ({
    where: `the blobs table of ${this.#filename}`,
    read: (sha256) => (this.#blob()?.get(runId, sha256) as { data: Uint8Array } | undefined)?.data,
  }));
  readonly #filename: string;
  #blobs: Statement | null | undefined;
  readonly #db: Connection;
  readonly #version: Statement;
  readonly #lengths: Statement;
  readonly #rows: Statement;
  #seen: unknown = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(filename: string) {
    this.#filename = filename;
    this.#db = openReadonly(filename);
    this.#version = this.#db.prepare("PRAGMA data_version");
    this.#lengths = this.#db.prepare("SELECT run_id, MAX(seq) AS seq FROM events GROUP BY run_id");
    this.#rows = this.#db.prepare(
      "SELECT seq, type, at, CAST(data AS TEXT) AS data FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq",
    );
  }

  /** The statement that reads a blob; null for a file of a layout before the blobs table (it has none). */
  #blob(): Statement | null {
    if (this.#blobs === undefined) {
      try {
        this.#blobs = this.#db.prepare("SELECT data FROM blobs WHERE run_id = ? AND sha256 = ?");
      } catch {
        this.#blobs = null;
      }
    }
    return this.#blobs;
  }

  async start(): Promise<void> {
    this.poke();
    this.#timer = setInterval(() => this.#tick(), SQLITE_TICK_MS);
    this.#timer.unref();
  }

  poke(): void {
    this.#seen = null;
    this.#tick();
  }

  close(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#db.close();
  }

  #tick(): void {
    const version = JSON.stringify(this.#version.get());
    if (version === this.#seen) return;
    this.#seen = version;
    for (const { run_id: runId, seq } of this.#lengths.all() as { run_id: string; seq: number }[]) {
      let run = this.runs.ensure(runId);
      if (seq + 1 < run.length) run = this.runs.reset(runId);
      if (seq + 1 === run.length || run.refused !== null) continue;
      for (const row of this.#rows.all(runId, run.length) as Row[]) run.add(eventOf(row, run));
      this.runs.changed(runId);
    }
  }
}

/** The event a row holds: the whole event as written (layout 2), or its data beside the columns (layout 1). */
function eventOf(row: Row, run: { refuse(reason: string): void; readonly runId: string }): unknown {
  try {
    const data = JSON.parse(row.data) as Record<string, unknown>;
    return "type" in data ? data : { seq: row.seq, type: row.type, at: row.at, ...data };
  } catch {
    run.refuse(`run '${run.runId}': event ${row.seq} is not valid JSON`);
    return null;
  }
}

/** A read-only connection with Node's `node:sqlite` where it exists, else with better-sqlite3 (found beside @agentloop/sqlite). */
function openReadonly(filename: string): Connection {
  const load = createRequire(import.meta.resolve("@agentloop/sqlite"));
  try {
    const { DatabaseSync } = load("node:sqlite") as { DatabaseSync: new (path: string, o: object) => Connection };
    return new DatabaseSync(filename, { readOnly: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_UNKNOWN_BUILTIN_MODULE") throw error;
  }
  const Database = load("better-sqlite3") as new (path: string, o: object) => Connection;
  try {
    return new Database(filename, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new Error(`cannot watch '${filename}': ${messageOf(error)}`);
  }
}
