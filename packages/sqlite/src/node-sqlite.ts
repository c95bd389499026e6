import type { OpenOptions, SqliteDatabase, SqliteStatement } from "./sqlite-connection.js";

/** The part of `node:sqlite` the store uses. */
export interface NodeSqlite {
  DatabaseSync: new (
    path: string,
    options: { readOnly: boolean },
  ) => {
    prepare(sql: string): SqliteStatement<unknown>;
    exec(sql: string): void;
    close(): void;
  };
}

// SQLite's primary result codes, by number (https://sqlite.org/rescode.html).
const CODES = [
  "OK",
  "ERROR",
  "INTERNAL",
  "PERM",
  "ABORT",
  "BUSY",
  "LOCKED",
  "NOMEM",
  "READONLY",
  "INTERRUPT",
  "IOERR",
  "CORRUPT",
  "NOTFOUND",
  "FULL",
  "CANTOPEN",
  "PROTOCOL",
  "EMPTY",
  "SCHEMA",
  "TOOBIG",
  "CONSTRAINT",
  "MISMATCH",
  "MISUSE",
  "NOLFS",
  "AUTH",
  "FORMAT",
  "RANGE",
  "NOTADB",
  "NOTICE",
  "WARNING",
];

/**
 * Runs `call`; an error of node:sqlite (`ERR_SQLITE_ERROR`, SQLite's number in `errcode`) is given
 * SQLite's name in `code`, as better-sqlite3 names it (`SQLITE_BUSY`), so callers see one error shape.
 */
function named<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    const { code, errcode } = error as { code?: unknown; errcode?: unknown };
    const name = typeof errcode === "number" ? CODES[errcode & 0xff] : undefined;
    if (code === "ERR_SQLITE_ERROR" && name !== undefined) {
      Object.defineProperty(error, "code", { value: `SQLITE_${name}`, configurable: true, writable: true });
    }
    throw error;
  }
}

type Guard = <T>(call: () => T) => T;

function statement<Row>(prepared: SqliteStatement<unknown>, guard: Guard): SqliteStatement<Row> {
  return {
    run: (...params) => guard(() => prepared.run(...params)),
    get: (...params) => guard(() => prepared.get(...params)) as Row | undefined,
    all: (...params) => guard(() => prepared.all(...params)) as Row[],
  };
}

/** A connection through Node's built-in `node:sqlite`. */
export function nodeSqlite(sqlite: NodeSqlite, filename: string, options: OpenOptions): SqliteDatabase {
  const db = named(() => new sqlite.DatabaseSync(filename, { readOnly: options.readonly }));
  // The `timeout` option of DatabaseSync is newer than Node 22.5; the pragma works on every version.
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.timeout))}`);
  let open = true;
  // node:sqlite says "statement has been finalized" once closed; better-sqlite3's words name the cause.
  const guard: Guard = (call) =>
    named(() => {
      if (!open) throw new TypeError("The database connection is not open");
      return call();
    });
  const exec = (sql: string) => guard(() => db.exec(sql));
  return {
    driver: "node:sqlite",
    get open() {
      return open;
    },
    prepare: <Row>(sql: string) =>
      statement<Row>(
        guard(() => db.prepare(sql)),
        guard,
      ),
    exec,
    immediate: (body) => {
      exec("BEGIN IMMEDIATE");
      try {
        const result = body();
        exec("COMMIT");
        return result;
      } catch (error) {
        try {
          exec("ROLLBACK");
        } catch {
          // SQLite already rolled back (a full disk, an I/O error): the first error is the one to see.
        }
        throw error;
      }
    },
    close: () => {
      if (open) db.close();
      open = false;
    },
  };
}
