import { createRequire } from "node:module";

/** A SQLite connection of a test's own: the part of node:sqlite's and better-sqlite3's API the tests use. */
export interface Connection {
  exec(sql: string): void;
  prepare(sql: string): { all(): Record<string, unknown>[] };
  close(): void;
}
type Open = new (path: string, options: Record<string, boolean>) => Connection;

/** A connection through the SQLite the store uses on this Node (node:sqlite, else better-sqlite3). */
export function openSqlite(path: string, readonly = false): Connection {
  const require = createRequire(import.meta.url);
  let builtin: { DatabaseSync: Open } | null = null;
  try {
    builtin = require("node:sqlite") as { DatabaseSync: Open };
  } catch {
    // Node 20: better-sqlite3 below.
  }
  if (builtin !== null) return new builtin.DatabaseSync(path, { readOnly: readonly });
  const Database = require("better-sqlite3") as Open;
  return new Database(path, { readonly });
}
