import { InMemoryMemoryStore, MemoryEventStore, memoryTools, scriptedModel, ToolRegistry } from "@agentloop/core";
import { asks, final, toolCall } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { inMemory, only, trees } from "./in-memory.js";

/** A run with memory: it recalls Ada's city, then its model remembers her cat. */
async function memoryRun(captureContent: boolean) {
  const telemetry = inMemory({ captureContent });
  const scope = { resource: "ada" };
  const memory = new InMemoryMemoryStore();
  await memory.put(scope, "city", "Ada lives in Pune");
  const registry = new ToolRegistry().add(...memoryTools(memory, scope));
  const store = new MemoryEventStore();
  const model = scriptedModel([
    asks(toolCall("w1", "remember", { key: "pet", value: "Ada has a cat called Miso" })),
    final("Noted."),
  ]);
  await telemetry.telemetry.runAgent("My cat is Miso; my city?", model, registry, {
    store,
    runId: "m",
    memory: { store: memory, scope },
  });
  return { ...telemetry, events: await store.read("m") };
}

describe("memory in the spans", () => {
  it("a recall is a memory_recall span under the turn's, before its first chat; a write an event on the tool's span", async () => {
    const { spans } = await memoryRun(false);
    const root = only(spans(), "invoke_agent");
    const recall = only(spans(), "memory_recall");
    expect(recall.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(recall.attributes).toMatchObject({
      "agentloop.memory.scope": "resource:ada",
      "agentloop.memory.hits": 1,
      "agentloop.memory.keys": ["city"],
    });
    expect(recall.attributes["agentloop.memory.query"]).toBeUndefined();
    expect(recall.attributes["agentloop.memory.values"]).toBeUndefined();
    const nanos = ([seconds, nanoseconds]: readonly [number, number]) => seconds * 1e9 + nanoseconds;
    const chats = spans().filter((span) => span.name.startsWith("chat"));
    const firstChat = Math.min(...chats.map((span) => nanos(span.startTime)));
    expect(nanos(recall.endTime)).toBeLessThanOrEqual(firstChat);
    const tool = only(spans(), "execute_tool remember");
    expect(tool.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        "agentloop.memory.written",
        { "gen_ai.tool.call.id": "w1", "agentloop.memory.scope": "resource:ada", "agentloop.memory.keys": ["pet"] },
      ],
    ]);
  });

  it("records the query and the values only with captureContent, and gives the same spans from the log", async () => {
    const { telemetry, spans, reset, events } = await memoryRun(true);
    expect(only(spans(), "memory_recall").attributes).toMatchObject({
      "agentloop.memory.query": "My cat is Miso; my city?",
      "agentloop.memory.values": ["Ada lives in Pune"],
    });
    expect(only(spans(), "execute_tool remember").events[0]?.attributes?.["agentloop.memory.values"]).toEqual([
      "Ada has a cat called Miso",
    ]);
    const live = trees(spans());
    reset();
    telemetry.spansFromLog("m", events);
    expect(trees(spans())).toEqual(live);
  });
});
