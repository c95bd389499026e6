import type { MemoryData } from "@agentloop/ai-sdk";
import { InMemoryMemoryStore, memoryTools, streamAgent, ToolRegistry } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { chunksOf, messageOf, partsOf } from "./read.js";

describe("memory in the UI message stream", () => {
  it("what a run recalled and what its tools remembered come as data-memory parts the page holds, in order", async () => {
    const scope = { resource: "ada" };
    const memory = new InMemoryMemoryStore();
    await memory.put(scope, "city", "Ada lives in Pune");
    const registry = new ToolRegistry().add(...memoryTools(memory, scope));
    const model = scriptedModel([
      asks(toolCall("w1", "remember", { key: "pet", value: "Ada has a cat called Miso" })),
      final("Noted."),
    ]);
    const chunks = await chunksOf(
      streamAgent("My cat is Miso; my city?", model, registry, { memory: { store: memory, scope } }),
    );
    const data = chunks.filter((chunk) => chunk.type === "data-memory") as { id?: string }[];
    expect(data.map((chunk) => chunk.id)).toEqual(["memory-1", "memory-2"]);
    const message = await messageOf(chunks);
    const parts = (partsOf(message) as { type: string; data: MemoryData }[]).filter(
      (part) => part.type === "data-memory",
    );
    expect(parts.map((part) => part.data)).toEqual([
      {
        kind: "recalled",
        query: "My cat is Miso; my city?",
        hits: [{ key: "city", value: "Ada lives in Pune", score: expect.any(Number) }],
      },
      { kind: "written", toolCallId: "w1", key: "pet", value: "Ada has a cat called Miso" },
    ]);
    expect(chunks.findIndex((chunk) => chunk.type === "data-memory")).toBeLessThan(
      chunks.findIndex((chunk) => chunk.type === "start-step"),
    );
  });
});
