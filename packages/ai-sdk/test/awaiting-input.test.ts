import { type AgentStreamEvent, askUserTool, streamAgent, ToolRegistry } from "@agentloop/core";
import { asks, scriptedModel, toolCall } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { chunksOf, messageOf, partsOf } from "./read.js";

describe("a run paused for the user's answer", () => {
  it("leaves the question a tool part in input-available, as a client-side tool's call, and finishes with tool-calls and its status, no error", async () => {
    const model = scriptedModel([asks(toolCall("q1", "ask_user", { question: "Which city?" }))]);
    const stream = streamAgent("Weather?", model, new ToolRegistry([askUserTool()]));
    const chunks = await chunksOf(stream as AsyncIterable<AgentStreamEvent>);
    expect((await stream.result).status).toBe("awaiting_input");
    expect(chunks.some((chunk) => chunk.type === "error")).toBe(false);
    expect(chunks.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "tool-calls",
      messageMetadata: { status: "awaiting_input" },
    });
    expect(partsOf(await messageOf(chunks))).toEqual([
      expect.objectContaining({
        type: "tool-ask_user",
        toolCallId: "q1",
        state: "input-available",
        input: { question: "Which city?" },
      }),
    ]);
  });
});
