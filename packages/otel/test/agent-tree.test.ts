import { agentTool, asks, final, MemoryEventStore, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { inMemory, weather } from "./in-memory.js";

/** Each span as `name <- parent name (conversation id)`, sorted. */
function outline(spans: readonly ReadableSpan[]): string[] {
  const names = new Map(spans.map((span) => [span.spanContext().spanId, span.name]));
  return spans
    .map((span) => {
      const parent = span.parentSpanContext === undefined ? "-" : (names.get(span.parentSpanContext.spanId) ?? "?");
      return `${span.name} <- ${parent} (${String(span.attributes["gen_ai.conversation.id"])})`;
    })
    .sort();
}

function tree() {
  const child = scriptedModel([asks(toolCall("w1", "get_weather", { city: "Pune" })), final("30 °C.")]);
  const registry = new ToolRegistry([
    agentTool({ name: "forecaster", description: "Finds the weather.", model: child, registry: weather() }),
  ]);
  const parent = scriptedModel([
    asks(toolCall("f1", "forecaster", { task: "How hot is Pune?" })),
    final("It is 30 °C in Pune."),
  ]);
  return { parent, registry };
}

describe("a run with an agent tool, traced live", () => {
  it("nests the child's invoke_agent span, named for its tool, under the parent's execute_tool span", async () => {
    const { telemetry, spans } = inMemory({ agentName: "planner" });
    const { parent, registry } = tree();
    const store = new MemoryEventStore();
    const result = await telemetry.runAgent("How hot is Pune?", parent, registry, { store, runId: "p" });
    expect(result.status).toBe("done");
    expect(outline(spans())).toEqual([
      "chat <- invoke_agent forecaster (p.f1)",
      "chat <- invoke_agent forecaster (p.f1)",
      "chat gpt-4.1 <- invoke_agent planner (p)",
      "chat gpt-4.1 <- invoke_agent planner (p)",
      "execute_tool forecaster <- invoke_agent planner (p)",
      "execute_tool get_weather <- invoke_agent forecaster (p.f1)",
      "invoke_agent forecaster <- execute_tool forecaster (p.f1)",
      "invoke_agent planner <- - (p)",
    ]);
    const child = spans().find((span) => span.name === "invoke_agent forecaster");
    expect(child?.attributes).toMatchObject({ "agentloop.status": "done", "agentloop.steps": 2 });
  });

  it("nests at any depth, streamed and without a store: each run between is named as core names a child run", async () => {
    const { telemetry, spans } = inMemory({ agentName: "top" });
    const { parent: middle, registry: inner } = tree();
    const registry = new ToolRegistry([
      agentTool({ name: "planner", description: "Plans.", model: middle, registry: inner }),
    ]);
    const top = scriptedModel([asks(toolCall("t1", "planner", { task: "Pune?" })), final("30 °C.")]);
    const stream = telemetry.streamAgent("How hot is Pune?", top, registry, { runId: "q" });
    for await (const _ of stream) {
      // Draining the stream: the spans are what is checked.
    }
    expect((await stream.result).status).toBe("done");
    const nested = outline(spans()).filter((line) => line.startsWith("invoke_agent"));
    expect(nested).toEqual([
      "invoke_agent forecaster <- execute_tool forecaster (q.t1.f1)",
      "invoke_agent planner <- execute_tool planner (q.t1)",
      "invoke_agent top <- - (q)",
    ]);
  });

  it("ends a child's spans with its parent's when the child's run rejects", async () => {
    const { telemetry, spans } = inMemory({ agentName: "planner" });
    const down = () => {
      throw new Error("503 down");
    };
    const registry = new ToolRegistry([
      agentTool({ name: "forecaster", description: "Finds the weather.", model: down, registry: weather() }),
    ]);
    const parent = scriptedModel([asks(toolCall("f1", "forecaster", { task: "Pune?" })), final("?")]);
    await expect(telemetry.runAgent("How hot is Pune?", parent, registry, { runId: "r" })).rejects.toThrow(/503/);
    expect(outline(spans()).filter((line) => line.startsWith("invoke_agent"))).toEqual([
      "invoke_agent forecaster <- execute_tool forecaster (r.f1)",
      "invoke_agent planner <- - (r)",
    ]);
  });
});

describe("a run with an agent tool, traced from its logs", () => {
  it("nests the child's spans, read from its own log, under the call's execute_tool span as the live run does", async () => {
    const live = inMemory({ agentName: "planner" });
    const { parent, registry } = tree();
    const store = new MemoryEventStore();
    await live.telemetry.runAgent("How hot is Pune?", parent, registry, { store, runId: "p" });
    const logs = new Map([
      ["p", await store.read("p")],
      ["p.f1", await store.read("p.f1")],
    ]);
    const fromLog = inMemory({ agentName: "planner" });
    fromLog.telemetry.spansFromLog("p", logs.get("p") ?? [], (runId) => logs.get(runId));
    // The live child's model calls name no model, and neither does its log: the outlines agree.
    expect(outline(fromLog.spans())).toEqual(outline(live.spans()));
    const child = fromLog.spans().find((span) => span.name === "invoke_agent forecaster");
    const call = fromLog.spans().find((span) => span.name === "execute_tool forecaster");
    expect(child?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
    expect(child?.attributes).toMatchObject({ "agentloop.status": "done", "agentloop.steps": 2 });
  });

  it("without the child's log, the parent's trace is as before: the call's span and nothing under it", async () => {
    const { parent, registry } = tree();
    const store = new MemoryEventStore();
    const { telemetry, spans } = inMemory({ agentName: "planner" });
    await telemetry.runAgent("How hot is Pune?", parent, registry, { store, runId: "p" });
    const fromLog = inMemory({ agentName: "planner" });
    fromLog.telemetry.spansFromLog("p", await store.read("p"));
    expect(outline(fromLog.spans())).toEqual(outline(spans()).filter((line) => !line.endsWith("(p.f1)")));
  });
});
