import { existsSync, statSync } from "node:fs";
import { basename, dirname, extname } from "node:path";
import type { PostgresEventStore } from "@agentloop/postgres";
import { fileError, messageOf, UsageError } from "../cli-error.js";
import { type EventStore, isRunId, JsonlEventStore, type RepairableStore, type StoredEvent } from "../core-api.js";
import { type Importer, importOptional } from "./optional-module.js";

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

/** Whether a `--store` names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than a path. */
export function isPostgresUrl(store: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(store);
}

/** A store as messages show it: a Postgres URL without its password. */
export function storeShown(store: string): string {
  if (!isPostgresUrl(store)) return store;
  try {
    const url = new URL(store);
    if (url.password !== "") url.password = "***";
    return url.href;
  } catch {
    return "the PostgreSQL database given";
  }
}

/** Postgres stores this process opened: their pools and sessions keep it alive until closed (`closeStores`). */
const opened = new Set<{ close(): Promise<void> }>();

/** Closes the Postgres stores opened by the command that ends: committed appends kept, runs released. */
export async function closeStores(): Promise<void> {
  const stores = [...opened];
  opened.clear();
  await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
}

/** The store as a `PostgresEventStore` (it pages and tells of commits), or `null` for another store. */
export function postgresStoreOf(store: EventStore): PostgresEventStore | null {
  return "listPage" in store && "watch" in store && "pool" in store ? (store as PostgresEventStore) : null;
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
export async function openStore(
  path: string,
  { readonly = false, load }: { readonly readonly?: boolean; readonly load?: Importer } = {},
): Promise<RepairableStore> {
  if (isPostgresUrl(path)) return openPostgres(path, load);
  if (isSqlitePath(path)) return openSqlite(path, readonly, load);
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
  const before = reference.slice(0, hash);
  const path = hash > 0 && (isSqlitePath(before) || isPostgresUrl(before)) ? before : reference;
  if (isPostgresUrl(path)) {
    const store = await openPostgres(path);
    const named = hash > 0 && path !== reference ? reference.slice(hash + 1) : null;
    const runId = named === null ? await onlyRun(store, storeShown(path)) : checkRunId(named, "the run id after '#'");
    return { store, runId, label: `${storeShown(path)}#${runId}`, storePath: path };
  }
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

/**
 * A `postgres://` URL as a `PostgresEventStore` (loaded only then: an optional peer of the CLI);
 * its `schema` parameter names the store's schema (default `agentloop`), the rest goes to pg.
 */
async function openPostgres(store: string, load?: Importer): Promise<RepairableStore> {
  const module = await importOptional<typeof import("@agentloop/postgres")>(
    "@agentloop/postgres",
    `the PostgreSQL store '${storeShown(store)}'`,
    ["@agentloop/postgres", "pg"],
    load,
  );
  let url: URL;
  try {
    url = new URL(store);
  } catch {
    throw new UsageError(
      `--store '${storeShown(store)}' is not a URL: give postgres://user:password@host:port/database`,
    );
  }
  const schema = url.searchParams.get("schema");
  url.searchParams.delete("schema");
  try {
    const postgres = new module.PostgresEventStore({ connectionString: url.href }, schema === null ? {} : { schema });
    opened.add(postgres);
    return postgres;
  } catch (error) {
    throw new UsageError(`--store '${storeShown(store)}': ${messageOf(error)}`);
  }
}

async function openSqlite(path: string, readonly: boolean, load?: Importer): Promise<RepairableStore> {
  const module = await importOptional<typeof import("@agentloop/sqlite")>(
    "@agentloop/sqlite",
    `the SQLite store '${path}'`,
    ["@agentloop/sqlite"],
    load,
  ).catch((error: unknown) => {
    throw nativeModuleError(error) ?? error;
  });
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
  const native = nativeModuleError(error);
  if (native !== null) return native;
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  // @agentloop/sqlite without its driver (Node 20 without better-sqlite3): its own line says what to install.
  if (code === "MODULE_NOT_FOUND") return new UsageError(messageOf(error));
  if (code === "SQLITE_NOTADB") return new UsageError(`'${path}' is not a SQLite file (nor an agentloop log)`);
  if (code === "SQLITE_CANTOPEN") return new UsageError(`cannot open '${path}': ${messageOf(error)}`);
  const named = fileError(error, "open the store", path);
  if (named instanceof UsageError) return named;
  return new UsageError(`'${path}' is not an agentloop log: ${messageOf(error)}`);
}

/**
 * better-sqlite3's compiled module failing to load (built for another Node version, or never
 * built) as a one-line `UsageError` naming the cause and the fix, or `null` for any other error:
 * the file itself was never looked at, so it must not be called a bad log.
 */
export function nativeModuleError(error: unknown): UsageError | null {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  const text = error instanceof Error ? error.message.replace(/\s+/g, " ") : "";
  if (code !== "ERR_DLOPEN_FAILED" && !/better_sqlite3\.node|NODE_MODULE_VERSION|bindings file/.test(text)) return null;
  const versions = /using NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires NODE_MODULE_VERSION (\d+)/.exec(
    text,
  );
  const why = versions
    ? `it was compiled for another Node version (NODE_MODULE_VERSION ${versions[1]}; Node ${process.version} needs ${versions[2]})`
    : `it does not load in Node ${process.version} (${messageOf(error)})`;
  return new UsageError(
    `SQLite stores need better-sqlite3's native module, and ${why}: run 'npm rebuild better-sqlite3' (or give a directory to keep JSONL logs)`,
  );
}
