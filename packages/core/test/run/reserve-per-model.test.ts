import { describe, expect, it } from "vitest";
import { final, MemoryEventStore, type Model, runAgent } from "../../src/index.js";
import type { ModelWithLimits } from "../../src/machine.js";
import { bigResults, countingSummarizer, fetchingScript } from "./compaction-fixture.js";

/** A model that declares how long its replies can be. */
function limited(model: Model, maxReplyTokens: number): ModelWithLimits {
  return Object.assign(model, { maxReplyTokens });
}

describe("the budget reserves the reply of the model that is called", () => {
  it("a fallback whose replies can be longer is not called when its reply could pass the budget", async () => {
    let fallbackCalls = 0;
    const failing = limited(() => {
      throw Object.assign(new Error("400 bad request"), { retryable: false });
    }, 100);
    const fallback = limited(() => {
      fallbackCalls += 1;
      return final("x".repeat(8000));
    }, 2990);
    const store = new MemoryEventStore();
    const result = await runAgent("Say something long.", failing, bigResults(), {
      store,
      runId: "f",
      tokenBudget: 3000,
      fallbackModels: [fallback],
    });
    expect(fallbackCalls).toBe(0);
    expect(result.status).toBe("token_budget");
    const [started] = await store.read("f");
    expect(started?.type === "run.started" ? started.settings.fallbackReserves : undefined).toEqual([2990]);
  });

  it("a fallback within the budget with its own reserve is called", async () => {
    const failing = limited(() => {
      throw Object.assign(new Error("400 bad request"), { retryable: false });
    }, 100);
    const fallback = limited(() => final("short"), 200);
    const result = await runAgent("Say something.", failing, bigResults(), {
      tokenBudget: 3000,
      fallbackModels: [fallback],
    });
    expect(result).toMatchObject({ status: "done", answer: "short" });
  });

  it("a summarizer whose replies can be longer is not asked when its reply could pass the budget", async () => {
    const summarizer = Object.assign(countingSummarizer(), { maxReplyTokens: 4000 });
    const model = limited(
      (() => {
        const script = fetchingScript(6);
        let call = 0;
        return () => script[call++] ?? final("done");
      })(),
      10,
    );
    const store = new MemoryEventStore();
    const result = await runAgent("Read the pages.", model, bigResults(), {
      store,
      runId: "s",
      tokenBudget: 5000,
      compaction: { triggerTokens: 1500, keepRecent: 1, summarizer },
    });
    const [started] = await store.read("s");
    expect(started?.type === "run.started" ? started.settings.summaryReserve : undefined).toBe(4000);
    expect(summarizer.prompts).toHaveLength(0);
    expect(result.status).toBe("token_budget");
    expect(result.tokens).toBeLessThanOrEqual(5000);
  });

  it("an explicit replyReserve is the reserve of every model", async () => {
    const store = new MemoryEventStore();
    const fallback = limited(() => final("ok"), 2900);
    await runAgent(
      "Hi.",
      limited(() => final("ok"), 100),
      bigResults(),
      {
        store,
        runId: "e",
        replyReserve: 50,
        fallbackModels: [fallback],
        compaction: { triggerTokens: 1500, summarizer: Object.assign(countingSummarizer(), { maxReplyTokens: 900 }) },
      },
    );
    const [started] = await store.read("e");
    const settings = started?.type === "run.started" ? started.settings : undefined;
    expect(settings).toMatchObject({ replyReserve: 50 });
    expect(settings).not.toHaveProperty("fallbackReserves");
    expect(settings).not.toHaveProperty("summaryReserve");
  });
});
