import { type AgentStreamEvent, askUserTool, streamAgent, ToolRegistry } from "@agentloop/core";
import { asks, scriptedModel, toolCall } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { toAgUiEvents } from "../src/index.js";
import { AWAITING_INPUT } from "../src/to-ag-ui-events.js";

describe("a run paused for the user's answer", () => {
  it("ends the AG-UI stream with RUN_ERROR saying why, not with a RUN_FINISHED that looks like an answer", async () => {
    const model = scriptedModel([asks(toolCall("q1", "ask_user", { question: "Which city?" }))]);
    const stream = streamAgent("Weather?", model, new ToolRegistry([askUserTool()]));
    const events = [];
    for await (const event of toAgUiEvents(stream as AsyncIterable<AgentStreamEvent>, { threadId: "t", runId: "r" })) {
      events.push(event);
    }
    expect(events.at(-1)).toEqual({ type: "RUN_ERROR", message: AWAITING_INPUT });
    expect(events.some((event) => event.type === "RUN_FINISHED")).toBe(false);
  });
});
