import { verifyEvents } from "@ag-ui/client";
import { type BaseEvent, EventType } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { InMemoryMemoryStore, memoryTools, streamAgent, ToolRegistry } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { MEMORY_RECALLED, MEMORY_WRITTEN, toAgUiEvents } from "../src/index.js";

describe("memory in AG-UI", () => {
  it("a recall and a write are CUSTOM events the official verifier and schemas take, in the run's order", async () => {
    const scope = { resource: "ada" };
    const memory = new InMemoryMemoryStore();
    await memory.put(scope, "city", "Ada lives in Pune");
    const registry = new ToolRegistry().add(...memoryTools(memory, scope));
    const model = scriptedModel([
      asks(toolCall("w1", "remember", { key: "pet", value: "Ada has a cat called Miso" })),
      final("Noted."),
    ]);
    const stream = streamAgent("My cat is Miso; my city?", model, registry, { memory: { store: memory, scope } });
    const events: BaseEvent[] = [];
    for await (const event of toAgUiEvents(stream, { threadId: "t", runId: "r" })) events.push(event);
    await lastValueFrom(from(events).pipe(verifyEvents(), toArray()));
    for (const event of events) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
    const custom = events.filter((event) => event.type === EventType.CUSTOM) as (BaseEvent & {
      name: string;
      value: unknown;
    })[];
    expect(custom.map((event) => [event.name, event.value])).toEqual([
      [
        MEMORY_RECALLED,
        {
          query: "My cat is Miso; my city?",
          hits: [{ key: "city", value: "Ada lives in Pune", score: expect.any(Number) }],
        },
      ],
      [MEMORY_WRITTEN, { toolCallId: "w1", key: "pet", value: "Ada has a cat called Miso" }],
    ]);
    const types = events.map((event) => event.type);
    expect(types.indexOf(EventType.CUSTOM)).toBeLessThan(types.indexOf(EventType.STEP_STARTED));
  });
});
