import { describe, expect, it } from "vitest";
import {
  asks,
  final,
  MemoryEventStore,
  type Model,
  replayRun,
  runAgent,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { parseEventLog } from "../../src/store.js";
import { WEATHER_TASK as TASK } from "../../src/testing.js";

const registry = new ToolRegistry();

/** Reads a run's log back as a store that lost everything but the JSON would. */
async function readBack(store: MemoryEventStore, runId: string) {
  const events = await store.read(runId);
  return parseEventLog(runId, JSON.parse(JSON.stringify(events)));
}

describe("a provider's numbers never make a log unreadable", () => {
  it.each([
    ["1e20", 1e20],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["MAX_SAFE_INTEGER + 2", Number.MAX_SAFE_INTEGER + 2],
  ])(
    "a custom model's retryAfterMs of %s: logged as the longest whole wait, waited at most maxDelayMs",
    async (_, after) => {
      const store = new MemoryEventStore();
      let calls = 0;
      const model: Model = () => {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error("429 slow down"), { retryable: true, retryAfterMs: after });
        return final("ok");
      };
      const result = await runAgent(TASK, model, registry, {
        store,
        runId: "r",
        retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 2 },
      });
      expect(result.status).toBe("done");
      const events = await readBack(store, "r");
      expect(events.find((event) => event.type === "model.failed")).toMatchObject({
        retryAfterMs: Number.MAX_SAFE_INTEGER,
      });
      expect(events.find((event) => event.type === "retry.waited")).toMatchObject({ delayMs: 2 });
    },
  );

  it.each([
    ["NaN", Number.NaN],
    ["-5", -5],
  ])(
    "a custom model's retryAfterMs of %s is not a wait: the backoff is used and nothing of it is logged",
    async (_, after) => {
      const store = new MemoryEventStore();
      let calls = 0;
      const model: Model = () => {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error("429 slow down"), { retryable: true, retryAfterMs: after });
        return final("ok");
      };
      await runAgent(TASK, model, registry, {
        store,
        runId: "r",
        retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 2 },
      });
      const events = await readBack(store, "r");
      const failed = events.find((event) => event.type === "model.failed");
      expect(failed).toBeDefined();
      expect(failed).not.toHaveProperty("retryAfterMs");
    },
  );

  it("usage summing past MAX_SAFE_INTEGER over the steps leaves a log that reads back and replays", async () => {
    const store = new MemoryEventStore();
    const half = Math.floor(Number.MAX_SAFE_INTEGER / 2);
    let calls = 0;
    const model: Model = () => {
      calls += 1;
      const usage = { inputTokens: half, outputTokens: half };
      return calls < 3 ? { ...asks(toolCall(`c${calls}`, "missing")), usage } : { ...final("ok"), usage };
    };
    const result = await runAgent(TASK, model, registry, { store, runId: "u" });
    expect(Number.isSafeInteger(result.tokens)).toBe(true);
    const events = await readBack(store, "u");
    expect(() => replayRun(events)).not.toThrow();
  });
});
