import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { MemoryEventStore } from "../src/index.js";
import { JsonlEventStore } from "../src/jsonl-store.js";
import {
  type DurableHarness,
  describeDurableStore,
  describeEventStore,
  logError,
  sampleLog,
} from "./store-contract.js";

describeEventStore("MemoryEventStore", async () => ({ store: new MemoryEventStore() }));

/** A JsonlEventStore over a new temporary directory, with hooks that damage its files. */
function jsonlHarness(): DurableHarness & { readonly directory: string; file(runId: string): string } {
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
    close: () => rmSync(directory, { recursive: true, force: true }),
  };
}

describeDurableStore("JsonlEventStore", async () => jsonlHarness());

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
});
