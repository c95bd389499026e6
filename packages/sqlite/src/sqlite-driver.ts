import { createRequire } from "node:module";
import { type NodeSqlite, nodeSqlite } from "./node-sqlite.js";
import type { OpenOptions, SqliteDatabase, SqliteStatement } from "./sqlite-connection.js";

export type { OpenOptions, SqliteDatabase, SqliteStatement } from "./sqlite-connection.js";

export type Require = (id: string) => unknown;

interface BetterSqlite3 {
  new (
    path: string,
    options: { timeout: number; readonly: boolean; fileMustExist: boolean },
  ): {
    readonly open: boolean;
    prepare(sql: string): SqliteStatement<unknown>;
    exec(sql: string): void;
    transaction<T>(body: () => T): { immediate(): T };
    close(): void;
  };
}

export type Opener = (filename: string, options: OpenOptions) => SqliteDatabase;

let opener: Opener | undefined;

/** Opens a connection with Node's built-in `node:sqlite` where it exists (Node ≥ 22.13, or 22.5 with --experimental-sqlite), else with better-sqlite3. */
export function openDatabase(filename: string, options: OpenOptions): SqliteDatabase {
  opener ??= chooseDriver(createRequire(import.meta.url));
  return opener(filename, options);
}

/** The driver `load` can give: `node:sqlite` first, better-sqlite3 where Node has none; a missing better-sqlite3 is a one-line error. */
export function chooseDriver(load: Require): Opener {
  let builtin: NodeSqlite | null = null;
  try {
    builtin = load("node:sqlite") as NodeSqlite;
  } catch {
    // Node 20, or Node 22 before node:sqlite left its flag: better-sqlite3 below.
  }
  if (builtin !== null) return (filename, options) => nodeSqlite(builtin, filename, options);
  let Better: BetterSqlite3;
  try {
    Better = load("better-sqlite3") as BetterSqlite3;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
    const message = `@agentloop/sqlite needs better-sqlite3 on Node ${process.version} (Node 22.13 and later have node:sqlite built in): npm i better-sqlite3`;
    throw Object.assign(new Error(message), { code: "MODULE_NOT_FOUND" });
  }
  return (filename, options) => betterSqlite3(Better, filename, options);
}

function betterSqlite3(Better: BetterSqlite3, filename: string, options: OpenOptions): SqliteDatabase {
  const db = new Better(filename, { ...options, fileMustExist: options.readonly });
  return {
    driver: "better-sqlite3",
    get open() {
      return db.open;
    },
    prepare: <Row>(sql: string) => db.prepare(sql) as SqliteStatement<Row>,
    exec: (sql) => db.exec(sql),
    immediate: (body) => db.transaction(body).immediate(),
    close: () => db.close(),
  };
}

/** Whether `error` is SQLite's own (not the store's), and whether it is a refused constraint. */
export function sqliteError(error: unknown): "constraint" | "other" | null {
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  if (code === undefined || !code.startsWith("SQLITE_")) return null;
  return code.startsWith("SQLITE_CONSTRAINT") ? "constraint" : "other";
}
