import { existsSync, statSync } from "node:fs";
import { basename, dirname, extname } from "node:path";
import type { EventStore } from "@agentloop/core";
import { isRunId, JsonlEventStore } from "@agentloop/core/jsonl-store";
import type { StoredEvent } from "@agentloop/core/store";
import { messageOf, UsageError } from "../cli-error.js";

const SQLITE_EXTENSIONS = new Set([".db", ".sqlite", ".sqlite3"]);

/** One run's log in a store: where it is, and how to name it to the user. */
export interface LogRef {
  readonly store: EventStore;
  readonly runId: string;
  /** The path the user gave, for messages. */
  readonly label: string;
}

/** Whether a path names a SQLite file rather than a directory of JSONL logs. */
export function isSqlitePath(path: string): boolean {
  return SQLITE_EXTENSIONS.has(extname(path).toLowerCase());
}

/** A `--store` path as a store: a `.db`/`.sqlite` file is a `SqliteEventStore`, anything else a directory of JSONL logs. */
export async function openStore(path: string): Promise<EventStore> {
  if (isSqlitePath(path)) return openSqlite(path);
  if (existsSync(path) && !statSync(path).isDirectory()) {
    throw new UsageError(`--store '${path}' is a file: give a directory (for JSONL logs) or a .db/.sqlite file`);
  }
  return new JsonlEventStore(path);
}

/**
 * A log the user named: `<dir>/<runId>.jsonl`, or `<file.db>#<runId>` in a SQLite store (the
 * `#<runId>` may be left out when the file holds one run).
 */
export async function openLog(reference: string): Promise<LogRef> {
  const hash = reference.lastIndexOf("#");
  const path = hash > 0 && isSqlitePath(reference.slice(0, hash)) ? reference.slice(0, hash) : reference;
  if (!existsSync(path)) throw new UsageError(`log '${path}' does not exist`);
  if (isSqlitePath(path)) {
    const store = await openSqlite(path);
    const runId = hash > 0 && path !== reference ? reference.slice(hash + 1) : await onlyRun(store, path);
    return { store, runId, label: reference };
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
  return { store: new JsonlEventStore(dirname(path)), runId, label: reference };
}

/** The events of a log the user named; a log with no events is a `UsageError`, a broken one core's `EventLogError`. */
export async function readLog(log: LogRef): Promise<StoredEvent[]> {
  const events = await log.store.read(log.runId);
  if (events.length === 0) throw new UsageError(`log '${log.label}' holds no run '${log.runId}'`);
  return events;
}

async function onlyRun(store: EventStore, path: string): Promise<string> {
  const runs = await store.list();
  const [only] = runs;
  if (runs.length === 1 && only !== undefined) return only.runId;
  const ids = runs.map((run) => run.runId).join(", ");
  throw new UsageError(
    runs.length === 0
      ? `store '${path}' holds no runs`
      : `store '${path}' holds ${runs.length} runs (${ids}): name one as ${path}#<runId>`,
  );
}

async function openSqlite(path: string): Promise<EventStore> {
  let module: typeof import("@agentloop/sqlite");
  try {
    module = await import("@agentloop/sqlite");
  } catch (error) {
    throw new UsageError(
      `SQLite stores need @agentloop/sqlite and its better-sqlite3 build (${messageOf(error)}); give a directory to keep JSONL logs instead`,
    );
  }
  return new module.SqliteEventStore(path);
}
