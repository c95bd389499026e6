import { asks, final, MemoryEventStore, type ModelReply, runAgent, scriptedModel, toolCall } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { inMemory, only, weather } from "./in-memory.js";

// Cache reads and writes on each chat span (the GenAI conventions' cache attributes), and a priced
// run's cost on its invoke_agent span: live, and from the log alike.

const cached: ModelReply = {
  ...final("It is 30 °C in Pune."),
  usage: { inputTokens: 1200, outputTokens: 12, cachedInputTokens: 1000, cacheWriteTokens: 150 },
};
const pricing = { default: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 } };
const cost = (50 * 3 + 1000 * 0.3 + 150 * 3.75 + 12 * 15) / 1e6;

describe("cache usage and cost on spans", () => {
  it("a live run's chat span carries the cache reads and writes, and its invoke_agent span the cost", async () => {
    const { telemetry, spans } = inMemory({ agentName: "weather" });
    const result = await telemetry.runAgent("How hot is Pune?", scriptedModel([cached]), weather(), { pricing });
    expect(result.cost).toBeCloseTo(cost, 12);
    expect(only(spans(), "chat gpt-4.1").attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 1200,
      "gen_ai.usage.output_tokens": 12,
      "gen_ai.usage.cache_read.input_tokens": 1000,
      "gen_ai.usage.cache_creation.input_tokens": 150,
    });
    expect(only(spans(), "invoke_agent weather").attributes["agentloop.cost"]).toBe(result.cost);
  });

  it("spans from a log carry the same", async () => {
    const store = new MemoryEventStore();
    const result = await runAgent("How hot is Pune?", scriptedModel([cached]), weather(), {
      pricing,
      store,
      runId: "r",
    });
    const { telemetry, spans } = inMemory({ agentName: "weather" });
    telemetry.spansFromLog("r", await store.read("r"));
    const chat = spans().find((span) => span.name.startsWith("chat"));
    expect(chat?.attributes).toMatchObject({
      "gen_ai.usage.cache_read.input_tokens": 1000,
      "gen_ai.usage.cache_creation.input_tokens": 150,
    });
    const root = spans().find((span) => span.name.startsWith("invoke_agent"));
    expect(root?.attributes["agentloop.cost"]).toBe(result.cost);
  });

  it("the invoke_agent span sums its chat spans' cache reads and writes, live and from the log alike", async () => {
    const twoCalls = (): ModelReply[] => [
      {
        ...asks(toolCall("c1", "get_weather", { city: "Pune" })),
        usage: { inputTokens: 900, outputTokens: 8, cachedInputTokens: 0, cacheWriteTokens: 800 },
      },
      cached,
    ];
    const totals = {
      "gen_ai.usage.input_tokens": 2100,
      "gen_ai.usage.output_tokens": 20,
      "gen_ai.usage.cache_read.input_tokens": 1000,
      "gen_ai.usage.cache_creation.input_tokens": 950,
    };
    const live = inMemory({ agentName: "weather" });
    const store = new MemoryEventStore();
    await live.telemetry.runAgent("How hot is Pune?", scriptedModel(twoCalls()), weather(), { store, runId: "r" });
    expect(only(live.spans(), "invoke_agent weather").attributes).toMatchObject(totals);
    const logged = inMemory({ agentName: "weather" });
    logged.telemetry.spansFromLog("r", await store.read("r"));
    expect(only(logged.spans(), "invoke_agent weather").attributes).toMatchObject(totals);
  });

  it("a run without cache usage or pricing has none of these attributes", async () => {
    const { telemetry, spans } = inMemory({ agentName: "weather" });
    await telemetry.runAgent(
      "Hi?",
      scriptedModel([{ ...final("Hi."), usage: { inputTokens: 5, outputTokens: 1 } }]),
      weather(),
    );
    const keys = spans().flatMap((span) => Object.keys(span.attributes));
    expect(keys).not.toContain("gen_ai.usage.cache_read.input_tokens");
    expect(keys).not.toContain("gen_ai.usage.cache_creation.input_tokens");
    expect(keys).not.toContain("agentloop.cost");
  });
});
