import { mkdtempSync, rmSync, statSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { newLockRecord } from "@agentloop/core/lock-file";
import type { StoredEvent } from "@agentloop/core/store";
import { logError, sampleLog } from "@agentloop/store-testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteEventStore } from "../src/index.js";
import { column, openRaw } from "./raw-sqlite.js";

// Group commit, strict decoding and the locks table, seen from the file.

let directory = "";
let filename = "";
const opened: SqliteEventStore[] = [];
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-sqlite-commit-"));
  filename = join(directory, "runs.db");
});
afterEach(() => {
  for (const store of opened.splice(0)) store.close();
  rmSync(directory, { recursive: true, force: true });
});

function open(options: { timeout?: number } = {}): SqliteEventStore {
  const store = new SqliteEventStore(filename, options);
  opened.push(store);
  return store;
}

/** Frames in the write-ahead log: each commit adds one per page it changed. */
function walFrames(): number {
  const size = statSync(`${filename}-wal`).size;
  return size === 0 ? 0 : (size - 32) / (4096 + 24);
}

const first = sampleLog()[0] as StoredEvent;

describe("SqliteEventStore group commit", () => {
  it("commits the appends of 100 runs in flight in one transaction, each resolved once it is committed", async () => {
    const store = open();
    await store.append("warm-up", first);
    const before = walFrames();
    const reader = openRaw(filename, { readonly: true });
    const seen: number[] = [];
    const count = () => column(reader, "SELECT COUNT(*) FROM events WHERE run_id != 'warm-up'")[0];
    await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        store.append(`run-${n}`, first).then(() => {
          seen.push(count() as number);
        }),
      ),
    );
    reader.close();
    // Committed before the first one resolved: every append was on disk when it was told.
    expect(new Set(seen)).toEqual(new Set([100]));
    // One transaction per append would add at least one frame each.
    expect(walFrames() - before).toBeLessThan(20);
  });

  it("refuses an event that does not fit its log, alone: the others of its group are committed", async () => {
    const store = open();
    const events = sampleLog();
    const outcomes = await Promise.allSettled([
      store.append("a", first),
      store.append("b", events[3] as StoredEvent),
      store.append("c", first),
      store.append("a", events[1] as StoredEvent),
      store.append("a", events[1] as StoredEvent),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "rejected",
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ name: "EventLogError", position: 3 });
    expect(await open().read("a")).toEqual(events.slice(0, 2));
    expect((await open().list()).map((run) => run.runId)).toEqual(["a", "c"]);
  });

  it("rejects every append of a group that cannot begin, and commits nothing of it", async () => {
    const store = open({ timeout: 20 });
    await store.append("a", first);
    const writer = openRaw(filename);
    writer.exec("BEGIN IMMEDIATE");
    const outcomes = await Promise.allSettled(["b", "c", "d"].map((runId) => store.append(runId, first)));
    writer.exec("ROLLBACK");
    writer.close();
    for (const outcome of outcomes)
      expect(outcome).toMatchObject({ status: "rejected", reason: { code: "SQLITE_BUSY" } });
    await store.append("b", first);
    expect((await store.list()).map((run) => run.runId)).toEqual(["a", "b"]);
  });

  it("releases the runs it holds when it is closed", async () => {
    const store = new SqliteEventStore(filename);
    await store.acquire("a");
    store.close();
    const lock = await open().acquire("a");
    await lock.release();
  });

  it("commits appends still waiting when it is closed", async () => {
    const store = new SqliteEventStore(filename);
    const append = store.append("a", first);
    store.close();
    await append;
    expect(await open().read("a")).toEqual([first]);
  });
});

describe("SqliteEventStore decoding", () => {
  it("reports a row that is not valid UTF-8 with its run and position, never as U+FFFD", async () => {
    const store = open();
    const events = sampleLog();
    for (const event of events) await store.append("run-1", event);
    const db = openRaw(filename);
    const data = Buffer.from(JSON.stringify(events[3]));
    data.set([0xff, 0xfe], data.indexOf("line one") + 5);
    db.prepare("UPDATE events SET data = CAST(? AS TEXT) WHERE run_id = 'run-1' AND seq = 3").run(data);
    db.close();
    const error = await logError(open().read("run-1"));
    expect(error).toMatchObject({ runId: "run-1", position: 3 });
    expect(error.message).toContain("has data that is not valid UTF-8");
    expect(error.intact).toEqual(events.slice(0, 3));
  });

  it("reports a row whose data does not agree with its columns", async () => {
    const store = open();
    for (const event of sampleLog().slice(0, 3)) await store.append("run-1", event);
    const db = openRaw(filename);
    db.prepare("UPDATE events SET type = 'tool.finished' WHERE run_id = 'run-1' AND seq = 2").run();
    db.close();
    const error = await logError(open().read("run-1"));
    expect(error).toMatchObject({ position: 2 });
    expect(error.message).toContain("does not agree with the row's seq, type and at columns");
  });
});

describe("SqliteEventStore locks table", () => {
  it("takes over the row of a dead process on this host, and refuses one from another host with how to delete it", async () => {
    const store = open();
    const db = openRaw(filename);
    const plant = db.prepare(
      "INSERT OR REPLACE INTO locks (run_id, pid, host, since, token, boot, pid_namespace) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const { boot, pidNamespace } = newLockRecord();
    const since = "2026-01-02T03:04:05.000Z";
    plant.run(
      "dead",
      2 ** 22 + 1,
      hostname(),
      since,
      globalThis.crypto.randomUUID(),
      boot ?? null,
      pidNamespace ?? null,
    );
    plant.run("far", process.pid, "elsewhere.example", since, globalThis.crypto.randomUUID(), null, null);
    db.close();
    const lock = await store.acquire("dead");
    await store.append("dead", first);
    await lock.release();
    for (const refused of [await logError(store.acquire("far")), await logError(store.append("far", first))]) {
      expect(refused.message).toBe(
        `run 'far' is being written elsewhere: by process ${process.pid} on host 'elsewhere.example' since 2026-01-02T03:04:05.000Z (locks table of ${filename}); a lock from another host is never taken over: if no process there writes this run any more, delete its row by hand (DELETE FROM locks WHERE run_id = 'far')`,
      );
    }
    expect(await store.read("far")).toEqual([]);
  });
});
