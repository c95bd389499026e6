// The connection's types, which both drivers implement: a file of their own, so that the driver
// chooser and each driver import them without importing each other.

/** A prepared statement, whichever driver prepared it. */
export interface SqliteStatement<Row> {
  run(...params: unknown[]): void;
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
}

/** The few calls the store makes on a SQLite connection, the same on `node:sqlite` and on better-sqlite3. */
export interface SqliteDatabase {
  /** Which driver opened it. */
  readonly driver: "node:sqlite" | "better-sqlite3";
  readonly open: boolean;
  prepare<Row = unknown>(sql: string): SqliteStatement<Row>;
  exec(sql: string): void;
  /** Runs `body` in a `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back when it throws. */
  immediate<T>(body: () => T): T;
  close(): void;
}

/** How a database is opened. */
export interface OpenOptions {
  readonly timeout: number;
  readonly readonly: boolean;
}
