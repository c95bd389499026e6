import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { hangGuard } from "../src/hang-guard.js";
import { sampleLog } from "../src/index.js";

// What each durability does, seen from the system calls: the store's fsyncs are counted, and the
// batch mode's are held back, to show that no append resolves before its line is synced.
const calls = vi.hoisted(() => ({
  syncs: [] as string[],
  held: [] as (() => void)[],
  hold: false,
  fail: false,
}));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  type Callback = (error: NodeJS.ErrnoException | null) => void;
  const later = (name: string, real: (fd: number, callback: Callback) => void) => (fd: number, callback: Callback) => {
    calls.syncs.push(name);
    if (calls.fail) {
      const error: NodeJS.ErrnoException = Object.assign(new Error(`EIO: i/o error, ${name}`), { code: "EIO" });
      setImmediate(() => callback(error));
    } else if (calls.hold) calls.held.push(() => real(fd, callback));
    else real(fd, callback);
  };
  return {
    ...fs,
    fdatasyncSync: (fd: number) => {
      calls.syncs.push("fdatasyncSync");
      fs.fdatasyncSync(fd);
    },
    fsyncSync: (fd: number) => {
      calls.syncs.push("fsyncSync");
      fs.fsyncSync(fd);
    },
    fdatasync: later("fdatasync", fs.fdatasync),
    fsync: later("fsync", fs.fsync),
  };
});

let directory = "";
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-durability-"));
  calls.syncs.length = 0;
  calls.held.length = 0;
  calls.hold = false;
  calls.fail = false;
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const events = sampleLog();

describe("JsonlEventStore durability", () => {
  it("event: every append syncs its own line before it resolves, and a new file's directory once", async () => {
    const store = new JsonlEventStore(directory, { durability: "event" });
    for (const event of events) await store.append("run-1", event);
    expect(calls.syncs).toEqual(["fdatasyncSync", "fsyncSync", ...Array(events.length - 1).fill("fdatasyncSync")]);
    expect(await store.read("run-1")).toEqual(events);
  });

  it("batch: appends in flight share one sync per file, and none resolves before its sync is done", async () => {
    const store = new JsonlEventStore(directory);
    expect(store.durability).toBe("batch");
    const [first] = events;
    if (first === undefined) throw new Error("empty sample");
    calls.hold = true;
    let resolved = 0;
    const appends = ["a", "b", "c"].map((runId) => store.append(runId, first).then(() => resolved++));
    await vi.waitFor(() => expect(calls.held).toHaveLength(4), { timeout: hangGuard(45_000) }); // three files, one directory
    expect(calls.syncs.sort()).toEqual(["fdatasync", "fdatasync", "fdatasync", "fsync"]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(resolved).toBe(0);
    for (const release of calls.held) release();
    await Promise.all(appends);
    expect(resolved).toBe(3);
    // The lines were written before the sync: a reader saw them all along.
    expect(await new JsonlEventStore(directory).read("b")).toEqual([first]);
  });

  it("batch: the appends of one run, one after another, are each synced", async () => {
    const store = new JsonlEventStore(directory, { durability: "batch" });
    for (const event of events) await store.append("run-1", event);
    expect(calls.syncs.filter((name) => name === "fdatasync")).toHaveLength(events.length);
  });

  it("none: nothing is synced; the line is written to the system before the append resolves", async () => {
    const store = new JsonlEventStore(directory, { durability: "none" });
    for (const event of events) await store.append("run-1", event);
    expect(calls.syncs).toEqual([]);
    expect(await new JsonlEventStore(directory).read("run-1")).toEqual(events);
  });

  it("a failed sync rejects the appends that waited for it, and frees the run", async () => {
    const store = new JsonlEventStore(directory);
    const [first, second] = events;
    if (first === undefined || second === undefined) throw new Error("sample too short");
    calls.fail = true;
    await expect(store.append("run-1", first)).rejects.toThrow("EIO: i/o error, fdatasync");
    calls.fail = false;
    expect(readdirSync(directory)).toEqual(["run-1.jsonl"]);
    await store.append("run-1", second);
    expect(await store.read("run-1")).toEqual([first, second]);
  });
});
