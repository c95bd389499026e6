import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newLockRecord } from "@agentloop/core/lock-file";
import type { StoredEvent } from "@agentloop/core/store";
import { logError, sampleLog } from "@agentloop/store-testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SQLITE_APPLICATION_ID, SQLITE_SCHEMA_VERSION, SqliteEventStore } from "../src/index.js";
import type { SqliteDatabase } from "../src/sqlite-driver.js";
import { column, openRaw, pragma } from "./raw-sqlite.js";

// Which files the store opens, and how: read-only opens write nothing, and a file that is not an
// agentloop event log is refused with one line naming it, in either mode, and left as it was.

let directory = "";
let filename = "";
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-sqlite-open-"));
  filename = join(directory, "runs.db");
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** Runs `setup` on a raw connection to the file, then closes it. */
function raw(setup: (db: SqliteDatabase) => void): void {
  const db = openRaw(filename);
  try {
    setup(db);
  } finally {
    db.close();
  }
}

/** Layout 1, as the first @agentloop/sqlite wrote it: no application id, no locks, data without the columns. */
function layoutOne(events: readonly StoredEvent[]): void {
  raw((db) => {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, at TEXT NOT NULL,
      data TEXT NOT NULL, PRIMARY KEY (run_id, seq)) STRICT; PRAGMA user_version = 1;`);
    const insert = db.prepare("INSERT INTO events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)");
    for (const { seq, type, at, ...payload } of events) insert.run("old", seq, type, at, JSON.stringify(payload));
  });
}

/** Expects both modes to refuse the file with `reason`, and the file's bytes to stay as they were. */
function expectRefused(reason: string): void {
  const before = readFileSync(filename);
  for (const readonly of [true, false]) {
    expect(() => new SqliteEventStore(filename, { readonly })).toThrow(
      `${filename} is not an agentloop event log: ${reason}`,
    );
    expect(readFileSync(filename).equals(before), `readonly: ${readonly}`).toBe(true);
  }
}

describe("SqliteEventStore read-only", () => {
  it("reads and lists a log of ours, writes nothing to the file, and refuses every write", async () => {
    const events = sampleLog();
    const writer = new SqliteEventStore(filename);
    for (const event of events) await writer.append("run-1", event);
    writer.close();
    const before = readFileSync(filename);
    const store = new SqliteEventStore(filename, { readonly: true });
    expect(store.readonly).toBe(true);
    expect(await store.read("run-1")).toEqual(events);
    expect(await store.list()).toMatchObject([{ runId: "run-1", events: events.length }]);
    const refusal = `${filename} was opened read-only: it cannot be written`;
    await expect(store.append("run-1", events[0] as StoredEvent)).rejects.toThrow(refusal);
    await expect(store.acquire("run-1")).rejects.toThrow(refusal);
    await expect(store.repair("run-1")).rejects.toThrow(refusal);
    store.close();
    expect(readFileSync(filename).equals(before)).toBe(true);
  });

  it("sees what a live writer commits", async () => {
    const events = sampleLog();
    const writer = new SqliteEventStore(filename);
    await writer.append("run-1", events[0] as StoredEvent);
    const reader = new SqliteEventStore(filename, { readonly: true });
    await writer.append("run-1", events[1] as StoredEvent);
    expect(await reader.read("run-1")).toEqual(events.slice(0, 2));
    reader.close();
    writer.close();
  });

  it("refuses a missing file, and creates nothing", () => {
    expect(() => new SqliteEventStore(filename, { readonly: true })).toThrow();
    expect(existsSync(filename)).toBe(false);
  });

  it("refuses an empty file, or SQLite without tables, with user_version 0: no table, no WAL, no version", () => {
    writeFileSync(filename, "");
    expect(() => new SqliteEventStore(filename, { readonly: true })).toThrow(
      `${filename} is not an agentloop event log: it has no events table`,
    );
    expect(readFileSync(filename)).toHaveLength(0);
    raw((db) => db.exec("CREATE TABLE notes (text TEXT)"));
    const before = readFileSync(filename);
    expect(() => new SqliteEventStore(filename, { readonly: true })).toThrow("it has no events table");
    expect(readFileSync(filename).equals(before)).toBe(true);
    raw((db) => {
      expect(pragma(db, "journal_mode")).toBe("delete");
      expect(pragma(db, "user_version")).toBe(0);
    });
  });
});

describe("SqliteEventStore refuses a file that is not an agentloop event log", () => {
  it("a file that is not SQLite at all", () => {
    writeFileSync(filename, "id,name\n1,alice\n".repeat(20));
    expectRefused("it is not a SQLite database");
  });

  it("a database with user_version 1 but no events table", () => {
    raw((db) => db.exec("CREATE TABLE notes (text TEXT); PRAGMA user_version = 1;"));
    expectRefused("it has no events table");
  });

  it("a database with an events table of other columns", () => {
    raw((db) => db.exec("CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT)"));
    expectRefused("its events table has the columns id, name, not run_id, seq, type, at, data");
  });

  it("a database whose user_version is no layout of ours", () => {
    raw((db) => {
      db.exec("CREATE TABLE events (run_id TEXT, seq INTEGER, type TEXT, at TEXT, data TEXT)");
      db.exec("PRAGMA user_version = 7");
    });
    expectRefused("its user_version 7 is no layout of @agentloop/sqlite");
  });

  it("another application's database (its application_id)", () => {
    raw((db) => db.exec("CREATE TABLE notes (text TEXT); PRAGMA application_id = 42;"));
    expectRefused("its application_id 42 marks it as another application's database");
  });
});

describe("SqliteEventStore layouts", () => {
  it("marks a new file as its own: application_id, user_version, the blobs, events and locks tables", async () => {
    const store = new SqliteEventStore(filename);
    store.close();
    raw((db) => {
      expect(pragma(db, "application_id")).toBe(SQLITE_APPLICATION_ID);
      expect(pragma(db, "user_version")).toBe(SQLITE_SCHEMA_VERSION);
      const tables = column(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
      expect(tables).toEqual(["blobs", "events", "locks"]);
    });
  });

  it("reads a layout-1 file as before, read-only without touching it; a writer brings it to this layout and goes on", async () => {
    const events = sampleLog();
    layoutOne(events.slice(0, 4));
    const before = readFileSync(filename);
    const reader = new SqliteEventStore(filename, { readonly: true });
    const read = await reader.read("old");
    expect(read).toEqual(events.slice(0, 4));
    expect(Object.keys(read[0] ?? {})).toEqual(["seq", "at", "type", "schemaVersion", "settings"]);
    reader.close();
    expect(readFileSync(filename).equals(before)).toBe(true);
    const writer = new SqliteEventStore(filename);
    await writer.append("old", events[4] as StoredEvent);
    const lock = await writer.acquire("old");
    await writer.append("old", events[5] as StoredEvent);
    await lock.release();
    writer.close();
    raw((db) => {
      expect(pragma(db, "user_version")).toBe(SQLITE_SCHEMA_VERSION);
      expect(pragma(db, "application_id")).toBe(SQLITE_APPLICATION_ID);
    });
    const again = new SqliteEventStore(filename, { readonly: true });
    expect(await again.read("old")).toEqual(events);
    again.close();
  });

  it("brings a layout-2 file to this layout, where a lock row of layout 2 (no PID namespace) is never taken over", async () => {
    const events = sampleLog();
    new SqliteEventStore(filename).close();
    raw((db) => {
      // Layout 2, as the previous @agentloop/sqlite wrote it, with a row its writer left.
      db.exec(`DROP TABLE locks; CREATE TABLE locks (run_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL,
        since TEXT NOT NULL, token TEXT NOT NULL, boot TEXT) STRICT; PRAGMA user_version = 2;`);
      const { host, since, token, boot } = newLockRecord();
      db.prepare("INSERT INTO locks VALUES (?, ?, ?, ?, ?, ?)").run(
        "held",
        2 ** 22 + 1,
        host,
        since,
        token,
        boot ?? null,
      );
    });
    const reader = new SqliteEventStore(filename, { readonly: true });
    expect(await reader.list()).toEqual([]);
    reader.close();
    const writer = new SqliteEventStore(filename);
    try {
      const refused = await logError(writer.acquire("held"));
      expect(refused.message).toContain("a lock that names no PID namespace (an older writer's) is never taken over");
      await writer.append("free", events[0] as StoredEvent);
    } finally {
      writer.close();
    }
    raw((db) => {
      expect(pragma(db, "user_version")).toBe(SQLITE_SCHEMA_VERSION);
      expect(column(db, "SELECT name FROM pragma_table_info('locks')")).toContain("pid_namespace");
    });
  });

  it("reads a layout-3 file (no blobs) read-only as it is; a writer adds the blobs table and keeps an image's bytes there", async () => {
    const events = sampleLog();
    new SqliteEventStore(filename).close();
    raw((db) => db.exec("DROP TABLE blobs; PRAGMA user_version = 3;"));
    raw((db) => {
      for (const event of events.slice(0, 3)) {
        db.prepare("INSERT INTO events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)").run(
          "old",
          event.seq,
          event.type,
          event.at,
          JSON.stringify(event),
        );
      }
    });
    const before = readFileSync(filename);
    const reader = new SqliteEventStore(filename, { readonly: true });
    expect(await reader.read("old")).toEqual(events.slice(0, 3));
    reader.close();
    expect(readFileSync(filename).equals(before)).toBe(true);
    const writer = new SqliteEventStore(filename);
    const image = { type: "image", mediaType: "image/png", data: Buffer.from("a picture").toString("base64") } as const;
    await writer.append("old", { ...(events[3] as StoredEvent), content: [image] } as StoredEvent);
    writer.close();
    raw((db) => {
      expect(pragma(db, "user_version")).toBe(SQLITE_SCHEMA_VERSION);
      expect(column(db, "SELECT length(data) FROM blobs WHERE run_id = 'old'")).toEqual([9]);
    });
    const again = new SqliteEventStore(filename, { readonly: true });
    expect((await again.read("old"))[3]).toMatchObject({ content: [image] });
    again.close();
  });
});
