import { existsSync, statSync } from "node:fs";
import { basename, dirname, extname } from "node:path";
import { fileError, messageOf, UsageError } from "../cli-error.js";
import { type EventStore, isRunId, JsonlEventStore, type RepairableStore, type StoredEvent } from "../core-api.js";

const SQLITE_EXTENSIONS = new Set([".db", ".sqlite", ".sqlite3"]);

/** One run's log in a store: where it is, and how to name it to the user. */
export interface LogRef {
  readonly store: RepairableStore;
  readonly runId: string;
  /** The path the user gave, for messages. */
  readonly label: string;
  /** The store's own path: a directory of JSONL logs, or a SQLite file. */
  readonly storePath: string;
}

/** Whether a path names a SQLite file rather than a directory of JSONL logs. */
export function isSqlitePath(path: string): boolean {
  return SQLITE_EXTENSIONS.has(extname(path).toLowerCase());
}

/** A run id the user gave, or a `UsageError` saying what a run id may hold. */
export function checkRunId(runId: string, flag = "--run-id"): string {
  if (!isRunId(runId)) {
    throw new UsageError(
      `${flag} '${runId}' is not a run id: use 1-128 letters, digits, '_', '-' or '.', not starting with '.'`,
    );
  }
  return runId;
}

/**
 * A `--store` path as a store: a `.db`/`.sqlite` file is a `SqliteEventStore`, anything else a
 * directory of JSONL logs. `readonly` opens a SQLite file without changing it (for commands that
 * only read); a directory is never changed by reading.
 */
export async function openStore(path: string, { readonly = false } = {}): Promise<RepairableStore> {
  if (isSqlitePath(path)) return openSqlite(path, readonly);
  if (existsSync(path) && !statSync(path).isDirectory()) {
    throw new UsageError(`--store '${path}' is a file: give a directory (for JSONL logs) or a .db/.sqlite file`);
  }
  if (readonly && !existsSync(path)) throw new UsageError(`store '${path}' does not exist`);
  try {
    return new JsonlEventStore(path);
  } catch (error) {
    throw fileError(error, "use the store directory", path);
  }
}

/**
 * A log the user named: `<dir>/<runId>.jsonl`, or `<file.db>#<runId>` in a SQLite store (the
 * `#<runId>` may be left out when the file holds one run). `readonly` as for `openStore`.
 */
export async function openLog(reference: string, { readonly = true } = {}): Promise<LogRef> {
  const hash = reference.lastIndexOf("#");
  const path = hash > 0 && isSqlitePath(reference.slice(0, hash)) ? reference.slice(0, hash) : reference;
  if (!existsSync(path)) throw new UsageError(`log '${path}' does not exist`);
  if (isSqlitePath(path)) {
    const store = await openSqlite(path, readonly);
    const named = hash > 0 && path !== reference ? reference.slice(hash + 1) : null;
    const runId = named === null ? await onlyRun(store, path) : checkRunId(named, "the run id after '#'");
    return { store, runId, label: reference, storePath: path };
  }
  if (!statSync(path).isFile() || extname(path) !== ".jsonl") {
    throw new UsageError(`log '${path}' must be a <runId>.jsonl file (or a .db/.sqlite file with #<runId>)`);
  }
  const runId = basename(path, ".jsonl");
  if (!isRunId(runId)) {
    throw new UsageError(
      `log '${path}': the file name must be <runId>.jsonl, with a run id of letters, digits, '_', '-', '.'`,
    );
  }
  return { store: new JsonlEventStore(dirname(path)), runId, label: reference, storePath: dirname(path) };
}

/** The events of a log the user named; a log with no events is a `UsageError`, a broken one core's `EventLogError`. */
export async function readLog(log: LogRef): Promise<StoredEvent[]> {
  const events = await log.store.read(log.runId).catch((error: unknown) => {
    throw storeError(error, log.storePath);
  });
  if (events.length === 0) throw new UsageError(`log '${log.label}' holds no run '${log.runId}'`);
  return events;
}

/** A store's failure as one line naming its path; an `EventLogError` (which names the run and position) as it is. */
export function storeError(error: unknown, path: string): Error {
  if (typeof error === "object" && error !== null && "name" in error && error.name === "EventLogError") {
    return error as Error;
  }
  const named = fileError(error, "read the store", path);
  if (named instanceof UsageError) return named;
  return new UsageError(`store '${path}' cannot be used: ${messageOf(error)}`);
}

async function onlyRun(store: EventStore, path: string): Promise<string> {
  const runs = await store.list().catch((error: unknown) => {
    throw storeError(error, path);
  });
  const [only] = runs;
  if (runs.length === 1 && only !== undefined) return only.runId;
  const ids = runs.map((run) => run.runId).join(", ");
  throw new UsageError(
    runs.length === 0
      ? `store '${path}' holds no runs`
      : `store '${path}' holds ${runs.length} runs (${ids}): name one as ${path}#<runId>`,
  );
}

async function openSqlite(path: string, readonly: boolean): Promise<RepairableStore> {
  let module: typeof import("@agentloop/sqlite");
  try {
    module = await import("@agentloop/sqlite");
  } catch (error) {
    throw new UsageError(
      `SQLite stores need @agentloop/sqlite and its better-sqlite3 build (${messageOf(error)}); give a directory to keep JSONL logs instead`,
    );
  }
  if (readonly && existsSync(path) && !statSync(path).isFile()) throw new UsageError(`'${path}' is not a file`);
  const options: ConstructorParameters<typeof module.SqliteEventStore>[1] & { readonly readonly?: boolean } = {
    readonly,
  };
  try {
    return new module.SqliteEventStore(path, options);
  } catch (error) {
    throw sqliteError(error, path);
  }
}

/** Why a SQLite file cannot be opened, in one line that names it. */
function sqliteError(error: unknown, path: string): Error {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  if (code === "SQLITE_NOTADB") return new UsageError(`'${path}' is not a SQLite file (nor an agentloop log)`);
  if (code === "SQLITE_CANTOPEN") return new UsageError(`cannot open '${path}': ${messageOf(error)}`);
  const named = fileError(error, "open the store", path);
  if (named instanceof UsageError) return named;
  return new UsageError(`'${path}' is not an agentloop log: ${messageOf(error)}`);
}
