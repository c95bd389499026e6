import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryEventStore } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import type { StoredEvent } from "@agentloop/core/store";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  type DurableHarness,
  describeDurableStore,
  describeEventStore,
  describePruneContract,
  logError,
  sampleLog,
} from "../src/index.js";

describeEventStore("MemoryEventStore", async () => ({ store: new MemoryEventStore() }));

/** A JsonlEventStore over a new temporary directory, with hooks that damage its files. */
function jsonlHarness(): DurableHarness & {
  readonly directory: string;
  readonly store: JsonlEventStore;
  file(runId: string): string;
} {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-jsonl-"));
  const file = (runId: string) => join(directory, `${runId}.jsonl`);
  /** The file's text up to the start of its last line, and that line (without its newline). */
  const splitLast = (runId: string): [head: string, last: string] => {
    const text = readFileSync(file(runId), "utf8").replace(/\n$/, "");
    const start = text.lastIndexOf("\n") + 1;
    return [text.slice(0, start), text.slice(start)];
  };
  return {
    directory,
    file,
    store: new JsonlEventStore(directory),
    reopen: () => new JsonlEventStore(directory),
    corruptLast(runId) {
      const [head] = splitLast(runId);
      writeFileSync(file(runId), `${head}{"corrupt":true}\n`);
    },
    tearLast(runId) {
      const [head, last] = splitLast(runId);
      writeFileSync(file(runId), head + last.slice(0, Math.floor(last.length / 2)));
    },
    tornEntry: (position) => `line ${position + 1}`,
    blobs: {
      held: (runId) => readdirSync(join(directory, `${runId}.blobs`)),
      remove: (runId, sha256) => rmSync(join(directory, `${runId}.blobs`, sha256)),
      alter(runId, sha256) {
        const path = join(directory, `${runId}.blobs`, sha256);
        const bytes = readFileSync(path);
        bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
        writeFileSync(path, bytes);
      },
      editEvent(runId, position, edit) {
        const lines = readFileSync(file(runId), "utf8").split("\n");
        lines[position] = edit(lines[position] ?? "");
        writeFileSync(file(runId), lines.join("\n"));
      },
    },
    close: () => rmSync(directory, { recursive: true, force: true }),
  };
}

describeDurableStore("JsonlEventStore", async () => jsonlHarness());
describePruneContract("MemoryEventStore", async () => ({ store: new MemoryEventStore() }));
describePruneContract("JsonlEventStore", async () => jsonlHarness());

describe("JsonlEventStore files", () => {
  /** A harness removed when the test ends, pass or fail. */
  const open = () => {
    const harness = jsonlHarness();
    onTestFinished(() => harness.close?.());
    return harness;
  };

  it("writes one JSON line per event, an unlimited token budget as null", async () => {
    const harness = open();
    const events = sampleLog();
    for (const event of events) await harness.store.append("run-1", event);
    const lines = readFileSync(harness.file("run-1"), "utf8").split("\n");
    expect(lines).toHaveLength(events.length + 1);
    expect(lines.at(-1)).toBe("");
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ seq: 0, settings: { tokenBudget: null } });
  });

  it("reports a last line that ends without its newline as torn, and repair drops it", async () => {
    const harness = open();
    const events = sampleLog();
    for (const event of events) await harness.store.append("run-1", event);
    // A whole event whose newline was never written: the write did not finish, so it is torn too.
    writeFileSync(harness.file("run-1"), readFileSync(harness.file("run-1"), "utf8").replace(/\n$/, ""));
    const error = await logError(harness.reopen().read("run-1"));
    expect(error).toMatchObject({ runId: "run-1", position: 5 });
    expect(error.message).toMatch(/run 'run-1': line 6 of .*run-1\.jsonl is torn/);
    expect(error.intact).toEqual(events.slice(0, 5));
    expect(await harness.reopen().repair("run-1")).toBe(1);
    expect(readFileSync(harness.file("run-1"), "utf8").endsWith("\n")).toBe(true);
    expect(await harness.reopen().read("run-1")).toEqual(events.slice(0, 5));
  });

  it("reports a corrupt middle line at its line, and repair leaves the file alone", async () => {
    const harness = open();
    const events = sampleLog();
    for (const event of events) await harness.store.append("run-1", event);
    const lines = readFileSync(harness.file("run-1"), "utf8").split("\n");
    lines[2] = lines[2]?.slice(0, 20) ?? "";
    const damaged = lines.join("\n");
    writeFileSync(harness.file("run-1"), damaged);
    const store = harness.reopen();
    const error = await logError(store.read("run-1"));
    expect(error).toMatchObject({ runId: "run-1", position: 2 });
    expect(error.message).toMatch(/run 'run-1': line 3 of .* is not valid JSON/);
    expect(error.intact).toEqual(events.slice(0, 2));
    expect(await logError(store.repair("run-1"))).toMatchObject({ position: 2 });
    expect(readFileSync(harness.file("run-1"), "utf8")).toBe(damaged);
    expect(await store.list()).toMatchObject([{ runId: "run-1", events: 2, outcome: null }]);
  });

  it("refuses run ids that would leave its directory or hide a file", async () => {
    const harness = open();
    const [first] = sampleLog();
    if (first === undefined) throw new Error("empty sample");
    for (const runId of ["../escape", "a/b", "..", ".hidden", "a\\b", "", "x".repeat(129)]) {
      await expect(harness.store.append(runId, first)).rejects.toThrow(TypeError);
      await expect(harness.store.read(runId)).rejects.toThrow(TypeError);
    }
    expect(readdirSync(harness.directory)).toEqual([]);
    expect(existsSync(join(harness.directory, "..", "escape.jsonl"))).toBe(false);
    await harness.store.append("a.b-c_1", first);
    expect(readdirSync(harness.directory)).toEqual(["a.b-c_1.jsonl"]);
  });

  it("reports a line that is not valid UTF-8 with its run and line, never as U+FFFD", async () => {
    const harness = open();
    const events = sampleLog();
    for (const event of events) await harness.store.append("run-1", event);
    const bytes = readFileSync(harness.file("run-1"));
    // "line one" in the tool's result becomes "line \xff\xfe": valid JSON around bytes that are not UTF-8.
    const at = bytes.indexOf("line one");
    bytes.set([0xff, 0xfe], at + 5);
    writeFileSync(harness.file("run-1"), bytes);
    const error = await logError(harness.reopen().read("run-1"));
    expect(error).toMatchObject({ runId: "run-1", position: 3 });
    expect(error.message).toMatch(/run 'run-1': line 4 of .*run-1\.jsonl is not valid UTF-8; the 3 events before it/);
    expect(error.intact).toEqual(events.slice(0, 3));
    expect(await logError(harness.store.repair("run-1"))).toMatchObject({ position: 3 });
    // As the last line, it is dropped by repair like any broken last line.
    writeFileSync(harness.file("run-1"), bytes.subarray(0, bytes.indexOf("\n", at) + 1));
    expect(await harness.reopen().repair("run-1")).toBe(1);
    expect(await harness.reopen().read("run-1")).toEqual(events.slice(0, 3));
  });

  it("lists every readable run: a directory named *.jsonl and a broken file spoil only themselves", async () => {
    const harness = open();
    const events = sampleLog();
    for (const event of events) await harness.store.append("b-run", event);
    mkdirSync(join(harness.directory, "a-dir.jsonl"));
    writeFileSync(join(harness.directory, "c-broken.jsonl"), Buffer.from([0xc3, 0x28, 0x0a]));
    writeFileSync(join(harness.directory, "d-empty.jsonl"), "");
    expect(await harness.reopen().list()).toMatchObject([{ runId: "b-run", events: 6 }]);
    await expect(harness.store.read("a-dir")).rejects.toThrow();
    expect(await harness.store.read("d-empty")).toEqual([]);
  });

  it("leaves no lock file behind: an append or a repair takes the run's lock for itself only", async () => {
    const harness = open();
    const events = sampleLog();
    for (const event of events) await harness.store.append("run-1", event);
    appendFileSync(harness.file("run-1"), '{"seq":6,');
    expect(await harness.store.repair("run-1")).toBe(1);
    const lock = await harness.store.acquire("run-1");
    expect(readdirSync(harness.directory).sort()).toEqual(["run-1.jsonl", "run-1.jsonl.lock"]);
    const record = JSON.parse(readFileSync(`${harness.file("run-1")}.lock`, "utf8")) as Record<string, unknown>;
    expect(record).toMatchObject({ pid: process.pid, since: expect.any(String), token: expect.any(String) });
    await lock.release();
    expect(readdirSync(harness.directory)).toEqual(["run-1.jsonl"]);
  });

  it("repairs by cutting the broken end in place: the same file, its intact bytes untouched, a copy's leftover gone", async () => {
    const harness = open();
    const events = sampleLog();
    for (const event of events) await harness.store.append("run-1", event);
    appendFileSync(harness.file("run-1"), '{"seq":6,"at":');
    // What a repair by copy that was killed midway left beside the log.
    writeFileSync(join(harness.directory, ".run-1.jsonl.repair"), "partial copy");
    const before = statSync(harness.file("run-1")).ino;
    expect(await harness.reopen().repair("run-1")).toBe(1);
    expect(statSync(harness.file("run-1")).ino).toBe(before);
    expect(readdirSync(harness.directory)).toEqual(["run-1.jsonl"]);
    expect(readFileSync(harness.file("run-1"), "utf8")).toBe(
      events.map((event) => `${JSON.stringify(event)}\n`).join(""),
    );
  });

  it("refuses a lock held from another host, and says how to remove it by hand", async () => {
    const harness = open();
    const [first] = sampleLog();
    if (first === undefined) throw new Error("empty sample");
    const lockFile = `${harness.file("run-1")}.lock`;
    const since = "2026-01-02T03:04:05.000Z";
    const token = "00000000-0000-4000-8000-000000000000";
    writeFileSync(lockFile, JSON.stringify({ pid: 1, host: "elsewhere.example", since, token }));
    for (const refused of [
      await logError(harness.store.acquire("run-1")),
      await logError(harness.store.append("run-1", first)),
    ]) {
      expect(refused.message).toBe(
        `run 'run-1' is being written elsewhere: by process 1 on host 'elsewhere.example' since ${since} (lock file ${lockFile}); a lock from another host is never taken over: if no process there writes this run any more, remove the lock file by hand (rm '${lockFile}')`,
      );
    }
    writeFileSync(lockFile, "not a lock");
    expect((await logError(harness.store.acquire("run-1"))).message).toContain(
      `lock file ${lockFile} holds a lock that cannot be read`,
    );
    rmSync(lockFile);
    await harness.store.append("run-1", first);
    expect(await harness.store.read("run-1")).toEqual([first]);
  });

  it("appends after a write that failed half-way only once the torn line is repaired", async () => {
    const harness = open();
    const events = sampleLog();
    for (const event of events.slice(0, 3)) await harness.store.append("run-1", event);
    appendFileSync(harness.file("run-1"), '{"seq":3,"at"');
    expect(await logError(harness.store.append("run-1", events[3] as StoredEvent))).toMatchObject({ position: 3 });
    expect(await harness.store.repair("run-1")).toBe(1);
    await harness.store.append("run-1", events[3] as StoredEvent);
    expect(await harness.reopen().read("run-1")).toEqual(events.slice(0, 4));
  });

  it("takes its durability from the constructor: batch by default, and refuses an unknown one", () => {
    const harness = open();
    expect(harness.store.durability).toBe("batch");
    for (const durability of ["event", "batch", "none"] as const) {
      expect(new JsonlEventStore(harness.directory, { durability }).durability).toBe(durability);
    }
    expect(() => new JsonlEventStore(harness.directory, { durability: "sometimes" as "none" })).toThrow(
      "durability must be one of event, batch, none; got sometimes",
    );
  });
});
