import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoredEvent } from "@agentloop/core/store";
import {
  type DurableHarness,
  describeDurableStore,
  describePruneContract,
  logError,
  sampleLog,
} from "@agentloop/store-testkit";
import { describe, expect, it, onTestFinished } from "vitest";
import { SQLITE_SCHEMA_VERSION, SqliteEventStore } from "../src/index.js";
import type { SqliteDatabase } from "../src/sqlite-driver.js";
import { column, openRaw, pragma } from "./raw-sqlite.js";

/** Event `index` of the sample log. */
function sample(index: number): StoredEvent {
  const event = sampleLog()[index];
  if (event === undefined) throw new Error(`the sample log has no event ${index}`);
  return event;
}

/** Opens a raw connection to the file, closed when the test ends. */
function raw(filename: string, options: { readonly?: boolean } = {}): SqliteDatabase {
  const db = openRaw(filename, options);
  onTestFinished(() => {
    db.close();
  });
  return db;
}

/** A SqliteEventStore on a real file in a new temporary directory, with hooks that damage its rows. */
function sqliteHarness(): DurableHarness & { readonly filename: string; readonly store: SqliteEventStore } {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-sqlite-"));
  const filename = join(directory, "runs.db");
  const opened: SqliteEventStore[] = [];
  const open = () => {
    const store = new SqliteEventStore(filename);
    opened.push(store);
    return store;
  };
  /** Runs `work` on a connection of its own. */
  const onRaw = <T>(work: (db: SqliteDatabase) => T): T => {
    const db = openRaw(filename);
    try {
      return work(db);
    } finally {
      db.close();
    }
  };
  /** Runs one statement on the last row of `runId` through a connection of its own. */
  const onLastRow = (runId: string, set: string) => {
    const db = openRaw(filename);
    const last = "SELECT MAX(seq) FROM events WHERE run_id = ?";
    db.prepare(`UPDATE events SET ${set} WHERE run_id = ? AND seq = (${last})`).run(runId, runId);
    db.close();
  };
  return {
    filename,
    store: open(),
    reopen: open,
    corruptLast: (runId) => onLastRow(runId, `data = '{"corrupt":true}'`),
    tearLast: (runId) => onLastRow(runId, "data = substr(data, 1, length(data) / 2)"),
    tornEntry: (position) => `event ${position}`,
    blobs: {
      held: (runId) => onRaw((db) => column(db, "SELECT sha256 FROM blobs WHERE run_id = ?", runId)) as string[],
      remove: (runId, sha256) =>
        onRaw((db) => db.prepare("DELETE FROM blobs WHERE run_id = ? AND sha256 = ?").run(runId, sha256)),
      alter: (runId, sha256) =>
        onRaw((db) => {
          const where = "WHERE run_id = ? AND sha256 = ?";
          const row = db.prepare<{ data: Uint8Array }>(`SELECT data FROM blobs ${where}`).get(runId, sha256);
          const bytes = Uint8Array.from(row?.data ?? []);
          bytes[0] = (bytes[0] ?? 0) ^ 1;
          db.prepare(`UPDATE blobs SET data = ? ${where}`).run(bytes, runId, sha256);
        }),
      editEvent: (runId, position, edit) =>
        onRaw((db) => {
          const row = db
            .prepare<{ data: string }>("SELECT data FROM events WHERE run_id = ? ORDER BY seq LIMIT 1 OFFSET ?")
            .get(runId, position);
          db.prepare("UPDATE events SET data = ? WHERE run_id = ? AND seq = ?").run(
            edit(row?.data ?? ""),
            runId,
            position,
          );
        }),
    },
    close() {
      for (const store of opened) store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

describeDurableStore("SqliteEventStore", async () => sqliteHarness());
describePruneContract("SqliteEventStore", async () => sqliteHarness());

describe("SqliteEventStore on disk", () => {
  /** A harness removed when the test ends, pass or fail. */
  const open = () => {
    const harness = sqliteHarness();
    onTestFinished(() => harness.close?.());
    return harness;
  };

  it("keeps its file in WAL mode, with its schema version in user_version", async () => {
    const { store, filename } = open();
    await store.append("run-1", sample(0));
    expect(existsSync(`${filename}-wal`)).toBe(true);
    const db = raw(filename, { readonly: true });
    expect(pragma(db, "journal_mode")).toBe("wal");
    expect(pragma(db, "user_version")).toBe(SQLITE_SCHEMA_VERSION);
  });

  it("writes one row per event: run_id, seq, type, at, and the whole event as written in data", async () => {
    const { store, filename } = open();
    const events = sampleLog();
    for (const event of events) await store.append("run-1", event);
    await store.append("run-2", sample(0));
    const rows = raw(filename, { readonly: true })
      .prepare("SELECT run_id, seq, type, at, data FROM events ORDER BY run_id, seq")
      .all() as { run_id: string; seq: number; type: string; at: string; data: string }[];
    expect(rows).toHaveLength(events.length + 1);
    expect(rows.map((row) => [row.run_id, row.seq, row.type, row.at])).toEqual([
      ...events.map((event) => ["run-1", event.seq, event.type, event.at]),
      ["run-2", 0, "run.started", events[0]?.at],
    ]);
    expect(rows.slice(0, events.length).map((row) => row.data)).toEqual(events.map((event) => JSON.stringify(event)));
    expect(JSON.parse(rows[0]?.data ?? "")).toMatchObject({ settings: { tokenBudget: null } });
  });

  it("lets a reader on another connection see each committed event, never an uncommitted one", async () => {
    const { store, filename } = open();
    const reader = new SqliteEventStore(filename);
    onTestFinished(() => reader.close());
    const events = sampleLog();
    for (const [index, event] of events.slice(0, 4).entries()) {
      await store.append("run-1", event);
      expect(await reader.read("run-1")).toEqual(events.slice(0, index + 1));
    }
    // Another writer holds the write lock in the middle of a transaction: the reader is not blocked
    // and sees only what was committed.
    const writer = raw(filename);
    writer.exec("BEGIN IMMEDIATE");
    const { seq, type, at, ...payload } = sample(4);
    writer
      .prepare("INSERT INTO events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)")
      .run("run-1", seq, type, at, JSON.stringify(payload));
    expect(await reader.read("run-1")).toEqual(events.slice(0, 4));
    writer.exec("COMMIT");
    expect(await reader.read("run-1")).toEqual(events.slice(0, 5));
    expect(await reader.list()).toMatchObject([{ runId: "run-1", events: 5, outcome: null }]);
  });

  it("checks each append against rows another connection wrote meanwhile", async () => {
    const { store, reopen } = open();
    const other = reopen();
    const events = sampleLog();
    await store.append("run-1", sample(0));
    await other.append("run-1", sample(1));
    const stale = await logError(store.append("run-1", sample(1)));
    expect(stale).toMatchObject({ runId: "run-1", position: 1 });
    expect(stale.message).toContain("the log holds 2 events");
    await store.append("run-1", sample(2));
    expect(await other.read("run-1")).toEqual(events.slice(0, 3));
  });

  it("fails an append with SQLITE_BUSY after its timeout while another writer holds the lock", async () => {
    const { filename } = open();
    const store = new SqliteEventStore(filename, { timeout: 20 });
    onTestFinished(() => store.close());
    const writer = raw(filename);
    writer.exec("BEGIN IMMEDIATE");
    await expect(store.append("run-1", sample(0))).rejects.toMatchObject({
      code: "SQLITE_BUSY",
    });
    writer.exec("ROLLBACK");
    await store.append("run-1", sample(0));
    expect(await store.read("run-1")).toHaveLength(1);
  });

  it("reports data that is JSON but not an object, and a gap in the seq column", async () => {
    const { store, filename } = open();
    const events = sampleLog();
    for (const event of events) await store.append("run-1", event);
    const db = raw(filename);
    db.prepare("UPDATE events SET data = '[1, 2]' WHERE run_id = 'run-1' AND seq = 5").run();
    const notObject = await logError(store.read("run-1"));
    expect(notObject).toMatchObject({ runId: "run-1", position: 5 });
    expect(notObject.message).toContain("is not a JSON object");
    db.prepare("DELETE FROM events WHERE run_id = 'run-1' AND seq = 2").run();
    const gap = await logError(store.read("run-1"));
    expect(gap).toMatchObject({ runId: "run-1", position: 2 });
    expect(gap.message).toContain("has seq 3, expected 2");
    expect(gap.intact).toEqual(events.slice(0, 2));
    expect(await logError(store.repair("run-1"))).toMatchObject({ position: 2 });
    expect(column(db, "SELECT COUNT(*) FROM events")).toEqual([5]);
  });

  it("refuses a file written by a newer schema, and leaves it as it was", () => {
    const { filename } = open();
    const db = raw(filename);
    db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    expect(() => new SqliteEventStore(filename)).toThrow(
      `schema version ${SQLITE_SCHEMA_VERSION + 1}; this @agentloop/sqlite reads up to ${SQLITE_SCHEMA_VERSION}`,
    );
    expect(pragma(db, "user_version")).toBe(SQLITE_SCHEMA_VERSION + 1);
  });

  it("creates the file's directory, and rejects every call once closed", async () => {
    const { filename } = open();
    const nested = join(filename, "..", "deeper", "runs.db");
    const store = new SqliteEventStore(nested);
    await store.append("run-1", sample(0));
    store.close();
    await expect(store.read("run-1")).rejects.toThrow(/not open/);
    await expect(store.list()).rejects.toThrow(/not open/);
    const again = new SqliteEventStore(nested);
    expect(await again.read("run-1")).toHaveLength(1);
    again.close();
  });
});

describe("SqliteEventStore in memory", () => {
  it("keeps runs for the life of the object", async () => {
    const store = new SqliteEventStore(":memory:");
    const events = sampleLog();
    for (const event of events) await store.append("run-1", event);
    expect(await store.read("run-1")).toEqual(events);
    const other = new SqliteEventStore(":memory:");
    expect(await other.read("run-1")).toEqual([]);
    store.close();
    other.close();
  });
});
