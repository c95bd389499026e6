import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayRun, resumeAgent } from "../../src/index.js";
import { pendingRequests } from "../../src/machine.js";
import { parseEventLog } from "../../src/store.js";
import { makeWeatherRegistry } from "../../src/testing.js";
import { GOLDEN, goldenStore, never } from "./golden-store.js";

// A golden log of schema 4, written once and never regenerated: a 429 with retry-after waited
// out, a tool call, then a 529 and a 500 on the run's model, and the answer from the fallback.

describe("golden log v4-retries", () => {
  it("replays to its recorded result: failed attempts, waits, and which model answered", async () => {
    const events = await goldenStore().read("v4-retries");
    expect(events.map((event) => event.type)).toEqual([
      "run.started",
      "model.failed",
      "retry.waited",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.failed",
      "retry.waited",
      "model.failed",
      "model.replied",
      "run.finished",
    ]);
    expect(events[1]).toMatchObject({ retryable: true, retryAfterMs: 2, model: 0 });
    expect(events[9]).toMatchObject({ model: 1 });
    const { result } = replayRun(events, { runId: "v4-retries" });
    expect(result).toMatchObject({ status: "done", steps: 2, tokens: 355, answer: "It is 30 °C in Pune." });
  });

  it("cut after a failure, it replays to the backoff wait, or to the fallback's call", async () => {
    const events = await goldenStore().read("v4-retries");
    expect(pendingRequests(replayRun(events.slice(0, 2)).snapshot)).toEqual([
      { type: "waitRetry", delayMs: 2, jitter: false },
    ]);
    expect(pendingRequests(replayRun(events.slice(0, 7)).snapshot)).toEqual([
      { type: "waitRetry", delayMs: 1, jitter: true },
    ]);
    expect(pendingRequests(replayRun(events.slice(0, 9)).snapshot)).toMatchObject([
      { type: "callModel", step: 2, model: 1 },
    ]);
  });

  it("resume gives the finished run back, calling nothing", async () => {
    const store = goldenStore();
    const result = await resumeAgent("v4-retries", never, makeWeatherRegistry().registry, {
      store,
      fallbackModels: [never],
    });
    expect(result).toMatchObject({ status: "done", steps: 2 });
  });

  it("a model.failed in a log of an older schema is refused", () => {
    const lines = readFileSync(join(GOLDEN, "v4-retries.jsonl"), "utf8").split("\n").slice(0, 2);
    const v3 = lines.map((line) => {
      const { hash: _hash, ...event } = JSON.parse(line) as Record<string, unknown>;
      return event;
    });
    const started = { ...v3[0], schemaVersion: 1 };
    expect(() => parseEventLog("v4-retries", [started, v3[1]])).toThrow("event 1 is not part of schema 1");
  });
});
