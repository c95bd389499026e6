import { type AgentStreamEvent, askUserTool, streamAgent, ToolRegistry } from "@agentloop/core";
import { asks, scriptedModel, toolCall } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { AWAITING_INPUT } from "../src/to-ui-message-stream.js";
import { chunksOf } from "./read.js";

describe("a run paused for the user's answer", () => {
  it("ends the UI message stream with an error that says why, then the finish with its status", async () => {
    const model = scriptedModel([asks(toolCall("q1", "ask_user", { question: "Which city?" }))]);
    const stream = streamAgent("Weather?", model, new ToolRegistry([askUserTool()]));
    const chunks = await chunksOf(stream as AsyncIterable<AgentStreamEvent>);
    expect((await stream.result).status).toBe("awaiting_input");
    const [error, finish] = chunks.slice(-2);
    expect(error).toEqual({ type: "error", errorText: AWAITING_INPUT });
    expect(finish).toMatchObject({ type: "finish", messageMetadata: { status: "awaiting_input" } });
  });
});
