import { asks, final, MemoryEventStore, runAgent, scriptedModel, toolCall } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { inMemory, only, weather } from "./in-memory.js";

describe("a run resumed in a call its process died in", () => {
  it("names the call's execute_tool span for its tool, with its arguments, as the run that asked for it would", async () => {
    const { telemetry, spans } = inMemory({ captureContent: true });
    const script = () => [asks(toolCall("c1", "get_weather", { city: "Pune" })), final("Hot.")];
    const store = new MemoryEventStore();
    await runAgent("How hot is Pune?", scriptedModel(script()), weather(), { store, runId: "w" });
    // The log as a crash while the tool ran leaves it: up to the call's start.
    const events = await store.read("w");
    const crashed = new MemoryEventStore();
    const cut = events.findIndex((event) => event.type === "tool.started");
    for (const event of events.slice(0, cut + 1)) await crashed.append("w", event);
    const resumed = await telemetry.resumeAgent("w", scriptedModel(script().slice(1)), weather(), { store: crashed });
    expect(resumed.status).toBe("done");
    const tool = only(spans(), "execute_tool get_weather");
    expect(tool.attributes["gen_ai.tool.call.id"]).toBe("c1");
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBe(JSON.stringify({ city: "Pune" }));
  });
});
