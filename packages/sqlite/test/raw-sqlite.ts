import { openDatabase, type SqliteDatabase } from "../src/sqlite-driver.js";

/** A connection of its own to `filename`, through the driver the store uses on this Node. */
export function openRaw(filename: string, options: { readonly?: boolean } = {}): SqliteDatabase {
  return openDatabase(filename, { timeout: 5000, readonly: options.readonly === true });
}

/** The first column of every row `sql` gives. */
export function column(db: SqliteDatabase, sql: string, ...params: unknown[]): unknown[] {
  return db
    .prepare<Record<string, unknown>>(sql)
    .all(...params)
    .map((row) => Object.values(row)[0]);
}

/** A pragma's value (`journal_mode`, `user_version`, …). */
export function pragma(db: SqliteDatabase, name: string): unknown {
  return column(db, `PRAGMA ${name}`)[0];
}
