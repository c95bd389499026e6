import { asks, final, handoff, scriptedModel, streamAgent, ToolRegistry, toolCall } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { chunksOf, messageOf } from "./read.js";

describe("a handoff in the UI message stream", () => {
  it("answers the handoff call's part, writes a data-handoff part naming who answers, and names the last agent in the metadata", async () => {
    const billing = scriptedModel([final("Order 7 is refunded.")]);
    const registry = new ToolRegistry([handoff({ name: "billing", model: billing, registry: new ToolRegistry() })]);
    const triage = scriptedModel([asks(toolCall("h1", "transfer_to_billing"))]);
    const chunks = await chunksOf(streamAgent("Refund order 7.", triage, registry, { name: "triage" }));
    const message = await messageOf(chunks);
    const parts = message.parts.filter((part) => part.type !== "step-start");
    expect(parts).toMatchObject([
      {
        type: "tool-transfer_to_billing",
        toolCallId: "h1",
        state: "output-available",
        output: "transferred to billing",
      },
      { type: "data-handoff", id: "h1", data: { toolCallId: "h1", from: "triage", to: "billing" } },
      { type: "text", text: "Order 7 is refunded." },
    ]);
    expect(message.metadata).toMatchObject({ status: "done", agent: "billing" });
  });
});
