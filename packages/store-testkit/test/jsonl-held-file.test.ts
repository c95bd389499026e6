import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent, scriptedModel } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { anchorOf, type RunEvent, stampEvent } from "@agentloop/core/store";
import { makeWeatherRegistry, WEATHER_TASK, weatherScript } from "@agentloop/core/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sampleLog } from "../src/index.js";

// A run held by `acquire` keeps its file open until released: seen from the system calls, each
// append is one write, the file is opened once and closed at the release, and each durability
// syncs what it did when every append opened the file.
const calls = vi.hoisted(() => ({
  log: [] as string[],
  held: [] as (() => void)[],
  hold: false,
}));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  type Callback = (error: NodeJS.ErrnoException | null) => void;
  const isLog = (path: unknown) => String(path).endsWith(".jsonl");
  const later = (name: string, real: (fd: number, callback: Callback) => void) => (fd: number, callback: Callback) => {
    calls.log.push(name);
    if (calls.hold) calls.held.push(() => real(fd, callback));
    else real(fd, callback);
  };
  return {
    ...fs,
    openSync: (path: string, ...rest: [never]) => {
      const fd = fs.openSync(path, ...rest);
      const flags: unknown = rest[0];
      // Opened to append (a read opens with numeric flags).
      if (isLog(path) && typeof flags === "string") calls.log.push(`open ${flags} ${fd}`);
      return fd;
    },
    statSync: (path: string, ...rest: [never]) => {
      if (isLog(path)) calls.log.push("stat");
      return fs.statSync(path, ...rest);
    },
    writeSync: (fd: number, ...rest: [never]) => {
      calls.log.push(`write ${fd}`);
      return fs.writeSync(fd, ...rest);
    },
    closeSync: (fd: number) => {
      calls.log.push(`close ${fd}`);
      fs.closeSync(fd);
    },
    fdatasyncSync: (fd: number) => {
      calls.log.push("fdatasyncSync");
      fs.fdatasyncSync(fd);
    },
    fsyncSync: (fd: number) => {
      calls.log.push("fsyncSync");
      fs.fsyncSync(fd);
    },
    fdatasync: later("fdatasync", fs.fdatasync),
    fsync: later("fsync", fs.fsync),
  };
});

let directory = "";
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-held-"));
  calls.log.length = 0;
  calls.held.length = 0;
  calls.hold = false;
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const events = sampleLog();

/** What happened to the log file, with each fd named by the order it was opened in ("#1"). */
function logCalls(): string[] {
  const fds = new Map<string, string>();
  const named: string[] = [];
  let opened = 0;
  for (const call of calls.log) {
    const open = /^open (\S+) (\d+)$/.exec(call);
    if (open !== null) {
      const name = `#${++opened}`;
      fds.set(open[2] ?? "", name);
      named.push(`open ${open[1]} ${name}`);
      continue;
    }
    const [name, fd] = call.split(" ");
    if (fd === undefined) named.push(call);
    else if (fds.has(fd)) named.push(`${name} ${fds.get(fd)}`);
    if (name === "close" && fd !== undefined) fds.delete(fd); // its number may name another file next
  }
  return named;
}

describe("JsonlEventStore: a held run's file", () => {
  it("is opened once (created), written once per event with no stat, and closed at the release", async () => {
    const store = new JsonlEventStore(directory, { durability: "none" });
    const lock = await store.acquire("run-1");
    expect(await store.read("run-1")).toEqual([]);
    calls.log.length = 0; // the appends' calls alone
    for (const event of events) await store.append("run-1", event);
    expect(logCalls()).toEqual(["open ax #1", ...events.map(() => "write #1")]);
    await lock.release();
    expect(logCalls().at(-1)).toBe("close #1");
    expect(await store.read("run-1")).toEqual(events);
  });

  it("event: each append syncs its line before it resolves, and the new file's directory once", async () => {
    const store = new JsonlEventStore(directory, { durability: "event" });
    const lock = await store.acquire("run-1");
    for (const event of events) await store.append("run-1", event);
    await lock.release();
    const syncs = calls.log.filter((call) => call.includes("sync"));
    expect(syncs).toEqual(["fdatasyncSync", "fsyncSync", ...Array(events.length - 1).fill("fdatasyncSync")]);
  });

  it("batch: no append resolves before its sync, and the release closes the file only after it", async () => {
    const store = new JsonlEventStore(directory);
    const [first, second] = events;
    if (first === undefined || second === undefined) throw new Error("sample too short");
    const lock = await store.acquire("run-1");
    await store.append("run-1", first);
    calls.hold = true;
    let appended = false;
    const append = store.append("run-1", second).then(() => (appended = true));
    let released = false;
    const release = lock.release().then(() => (released = true));
    await vi.waitFor(() => expect(calls.held).toHaveLength(1), { timeout: 45_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([appended, released, logCalls().includes("close #1")]).toEqual([false, false, false]);
    for (const sync of calls.held) sync();
    await Promise.all([append, release]);
    expect(logCalls().filter((call) => call.startsWith("fdatasync") || call.startsWith("close"))).toEqual([
      "fdatasync",
      "fdatasync",
      "close #1",
    ]);
    expect(await store.read("run-1")).toEqual([first, second]);
  });

  it("of a run that has a log is opened without being created, and appends go on after its end", async () => {
    const store = new JsonlEventStore(directory, { durability: "none" });
    for (const event of events.slice(0, 3)) await store.append("run-1", event);
    calls.log.length = 0;
    const lock = await store.acquire("run-1");
    await store.read("run-1");
    for (const event of events.slice(3)) await store.append("run-1", event);
    await lock.release();
    expect(logCalls().filter((call) => call.startsWith("open"))).toEqual(["open a #1"]);
    expect(await store.read("run-1")).toEqual(events);
  });

  it("after a prune while held, the next append goes to the anchor's new file, not the old one", async () => {
    const store = new JsonlEventStore(directory);
    await runAgent(WEATHER_TASK, scriptedModel(weatherScript()), makeWeatherRegistry().registry, { store, runId: "r" });
    const lock = await store.acquire("r");
    const logged = await store.read("r");
    const anchor = anchorOf("r", logged);
    if (typeof anchor === "string") throw new Error(anchor);
    const at = new Date().toISOString();
    const stamped = stampEvent(anchor, 0, at, anchor.tip);
    const next = stampEvent(
      { type: "user.messaged", content: "And tomorrow?" } as RunEvent,
      1,
      at,
      stamped.hash ?? null,
    );
    const last = stampEvent({ type: "user.messaged", content: "And after?" } as RunEvent, 2, at, next.hash ?? null);
    await store.prune("r", stamped, logged.length);
    await store.append("r", next);
    await expect(store.prune("r", stamped, 1)).rejects.toThrow("the log holds 2"); // as the file the store holds says
    await store.append("r", last);
    await lock.release();
    expect(await new JsonlEventStore(directory).read("r")).toEqual([stamped, next, last]);
    expect(readFileSync(join(directory, "r.jsonl"), "utf8").split("\n")).toHaveLength(4);
  });
});
