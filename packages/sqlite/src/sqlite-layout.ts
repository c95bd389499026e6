import { closeSync, openSync, readSync } from "node:fs";
import { SQLITE_APPLICATION_ID, SQLITE_SCHEMA_VERSION } from "./layout-ids.js";
import type { SqliteDatabase } from "./sqlite-driver.js";

// Layout 1: one row per event, `data` the event's JSON without the columns beside it.
// Layout 2: `data` is the whole event as written (keys in their order), plus the locks table and
// the application id. Rows of layout 1 stay as they are and are read as before.
// Layout 3: the locks table names the owner's PID namespace (`pid_namespace`); a writer of layout 2
// knows none, and would take over a lock held in a container, so it must refuse this file.
// Layout 4: the blobs table, a part's bytes once per run by their SHA-256; events refer to them,
// which a reader of layout 3 would not follow.
const LAYOUT = `
  CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    at TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  ) STRICT;
  CREATE TABLE IF NOT EXISTS locks (
    run_id TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    since TEXT NOT NULL,
    token TEXT NOT NULL,
    boot TEXT,
    pid_namespace TEXT
  ) STRICT;
  CREATE TABLE IF NOT EXISTS blobs (
    run_id TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, sha256)
  ) STRICT;
  PRAGMA application_id = ${SQLITE_APPLICATION_ID};
  PRAGMA user_version = ${SQLITE_SCHEMA_VERSION};
`;

const EVENT_COLUMNS = ["run_id", "seq", "type", "at", "data"];
const MAGIC = "SQLite format 3\0";

/**
 * Refuses, before SQLite opens it, a file that is not a SQLite database or that another
 * application marked as its own (its header's `application_id`); a missing or empty file passes.
 */
export function checkHeader(filename: string): void {
  let fd: number;
  try {
    fd = openSync(filename, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const header = Buffer.alloc(100);
  let read: number;
  try {
    read = readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (read === 0) return;
  if (read < 100 || header.toString("latin1", 0, 16) !== MAGIC) throw notOurs(filename, "it is not a SQLite database");
  const applicationId = header.readUInt32BE(68);
  if (applicationId !== 0 && applicationId !== SQLITE_APPLICATION_ID) {
    throw notOurs(filename, `its application_id ${applicationId} marks it as another application's database`);
  }
}

/**
 * Checks that an open database is an agentloop event log and returns its layout version; with
 * `create`, a database without tables of ours (new, or another program's with user_version 0)
 * gets them, and an older layout is brought up to date. Without `create`, nothing is written.
 */
export function checkLayout(db: SqliteDatabase, filename: string, create: boolean): number {
  const applicationId = db.prepare<{ application_id: number }>("PRAGMA application_id").get()?.application_id ?? 0;
  const version = db.prepare<{ user_version: number }>("PRAGMA user_version").get()?.user_version ?? 0;
  const columns = db
    .prepare<{ name: string }>("PRAGMA table_info(events)")
    .all()
    .map((column) => column.name);
  const hasEvents = columns.length > 0;
  if (applicationId === SQLITE_APPLICATION_ID && version > SQLITE_SCHEMA_VERSION) {
    throw new Error(
      `${filename} holds event store schema version ${version}; this @agentloop/sqlite reads up to ${SQLITE_SCHEMA_VERSION}`,
    );
  }
  if (hasEvents && EVENT_COLUMNS.some((name) => !columns.includes(name))) {
    throw notOurs(filename, `its events table has the columns ${columns.join(", ")}, not ${EVENT_COLUMNS.join(", ")}`);
  }
  const ours = (applicationId === SQLITE_APPLICATION_ID || (applicationId === 0 && version === 1)) && hasEvents;
  if (ours && version === SQLITE_SCHEMA_VERSION) return version;
  if (ours && create) {
    db.immediate(() => upgrade(db));
    return SQLITE_SCHEMA_VERSION;
  }
  if (ours) return version;
  if (create && applicationId === 0 && version === 0 && !hasEvents) {
    db.immediate(() => db.exec(LAYOUT));
    return SQLITE_SCHEMA_VERSION;
  }
  if (applicationId !== 0 && applicationId !== SQLITE_APPLICATION_ID) {
    throw notOurs(filename, `its application_id ${applicationId} marks it as another application's database`);
  }
  if (!hasEvents) throw notOurs(filename, "it has no events table");
  throw notOurs(filename, `its user_version ${version} is no layout of @agentloop/sqlite`);
}

/** Brings a file of an older layout to this one, inside the caller's transaction. */
function upgrade(db: SqliteDatabase): void {
  const locks = db
    .prepare<{ name: string }>("PRAGMA table_info(locks)")
    .all()
    .map((column) => column.name);
  // Rows of layout 2 keep a null pid_namespace: their owner's namespace is unknown, so never taken over.
  if (locks.length > 0 && !locks.includes("pid_namespace")) db.exec("ALTER TABLE locks ADD COLUMN pid_namespace TEXT");
  db.exec(LAYOUT);
}

function notOurs(filename: string, reason: string): Error {
  return new Error(`${filename} is not an agentloop event log: ${reason}`);
}
