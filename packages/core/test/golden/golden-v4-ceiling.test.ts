import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayRun, resumeAgent } from "../../src/index.js";
import { chainHash, parseEventLog } from "../../src/store.js";
import { makeWeatherRegistry } from "../../src/testing.js";
import { GOLDEN, goldenStore, never } from "./golden-store.js";

// A golden log of schema 4, written once and never regenerated: the owner had spent $0.95 of a
// $1 daily ceiling; the first call ($0.024) was made, and the second, which could have cost up
// to $0.028104, was refused by the ceiling before it was made.

describe("golden log v4-ceiling", () => {
  it("replays to its recorded result: cost_budget, naming the ceiling", async () => {
    const events = await goldenStore().read("v4-ceiling");
    expect(events.map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.finished",
      "ceiling.reached",
      "run.finished",
    ]);
    const { result } = replayRun(events, { runId: "v4-ceiling" });
    expect(result).toMatchObject({
      status: "cost_budget",
      steps: 1,
      tokens: 10_500,
      cost: 0.024,
      ceiling: { window: "day", limit: 1, spent: 0.974, reserve: 0.028104 },
    });
  });

  it("resume gives the finished run back, asking no model and no ledger", async () => {
    const result = await resumeAgent("v4-ceiling", never, makeWeatherRegistry().registry, { store: goldenStore() });
    expect(result).toMatchObject({ status: "cost_budget", ceiling: { window: "day", limit: 1 } });
  });

  it("a ceiling.reached whose amounts are not USD is refused, naming the event", () => {
    const raw = readFileSync(join(GOLDEN, "v4-ceiling.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The limit made negative, and the chain hashed again after it: only the field check can refuse it.
    let previous = raw[3]?.hash as string;
    const bad = raw.map((event, at) => {
      if (at < 4) return event;
      const { hash: _hash, ...rest } = at === 4 ? { ...event, limit: -1 } : event;
      previous = chainHash(previous, JSON.stringify(rest));
      return { ...rest, hash: previous };
    });
    expect(() => parseEventLog("v4-ceiling", bad)).toThrow(
      "event 4 needs a window ('day' or 'month') and a limit, spent and reserve in USD, 0 or more",
    );
  });
});
