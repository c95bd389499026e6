import { loadChat } from "@agentloop/ai-sdk";
import { MemoryEventStore, streamAgent } from "@agentloop/core";
import { asks, scriptedModel, toolCall } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { gatedRegistry, until } from "./gate.js";
import { chunksOf, messageOf } from "./read.js";

describe("a cancelled run's UI message stream", () => {
  it("ends with abort, as streamText's does, after the run's metadata; loadChat rebuilds the same message", async () => {
    const gate = gatedRegistry();
    const store = new MemoryEventStore();
    const controller = new AbortController();
    const model = scriptedModel([asks(toolCall("s1", "slow_lookup", {}))]);
    const reading = chunksOf(
      streamAgent("Look it up", model, gate.registry, { store, runId: "stopped", signal: controller.signal }),
    );
    await until(gate.entered);
    controller.abort(new Error("the user stopped it"));
    const chunks = await reading;
    expect(chunks.at(-1)).toEqual({ type: "abort", reason: "the user stopped it" });
    expect(chunks.some((chunk) => chunk.type === "finish")).toBe(false);
    expect(chunks.at(-2)).toEqual({
      type: "message-metadata",
      messageMetadata: { status: "cancelled", runId: "stopped" },
    });
    const message = await messageOf(chunks);
    expect(message.metadata).toEqual({ status: "cancelled", runId: "stopped" });
    const [, loaded] = await loadChat({ store, chatId: "stopped" });
    expect(loaded?.parts).toEqual(message.parts);
    expect(loaded?.metadata).toEqual(message.metadata);
  });
});
