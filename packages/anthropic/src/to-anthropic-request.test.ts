import type { Message, ToolSpec } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { toAnthropicPrompt, toAnthropicTools } from "./to-anthropic-request.js";

describe("toAnthropicPrompt", () => {
  it("puts the system prompt apart and the results of one reply in one user turn, in call order", () => {
    const messages: Message[] = [
      { role: "system", content: "Use the tools." },
      { role: "user", content: "Which is hotter?" },
      {
        role: "assistant",
        content: "Both.",
        toolCalls: [
          { id: "a", name: "get_weather", args: { city: "Pune" } },
          { id: "b", name: "get_weather", args: { city: "Delhi" } },
        ],
      },
      { role: "tool", toolCallId: "a", name: "get_weather", content: '{"celsius":30}' },
      { role: "tool", toolCallId: "b", name: "get_weather", content: "ERROR: get_weather failed: Error: down" },
      { role: "assistant", content: "Delhi.", toolCalls: [] },
    ];
    expect(toAnthropicPrompt(messages)).toEqual({
      system: "Use the tools.",
      messages: [
        { role: "user", content: "Which is hotter?" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Both." },
            { type: "tool_use", id: "a", name: "get_weather", input: { city: "Pune" } },
            { type: "tool_use", id: "b", name: "get_weather", input: { city: "Delhi" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "a", content: '{"celsius":30}' },
            {
              type: "tool_result",
              tool_use_id: "b",
              content: "ERROR: get_weather failed: Error: down",
              is_error: true,
            },
          ],
        },
        { role: "assistant", content: "Delhi." },
      ],
    });
  });

  it("leaves out empty text beside tool calls, and an empty system prompt", () => {
    const prompt = toAnthropicPrompt([
      { role: "system", content: "" },
      { role: "user", content: "u" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", args: {} }] },
    ]);
    expect(prompt).toEqual({
      messages: [
        { role: "user", content: "u" },
        { role: "assistant", content: [{ type: "tool_use", id: "a", name: "t", input: {} }] },
      ],
    });
  });

  it("merges a user message that follows tool results into the same turn, results first", () => {
    const { messages } = toAnthropicPrompt([
      { role: "user", content: "u" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", args: {} }] },
      { role: "tool", toolCallId: "a", name: "t", content: "1" },
      { role: "user", content: "Now in Fahrenheit." },
    ]);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: "1" },
      { type: "text", text: "Now in Fahrenheit." },
    ]);
  });
});

describe("toAnthropicPrompt's call ids", () => {
  it("gives an id the API refuses one it takes, the same on the call and its result, past any id already used", () => {
    const messages: Message[] = [
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a_b", name: "get_weather", args: { city: "Pune" } },
          { id: "a.b", name: "get_weather", args: { city: "Delhi" } },
        ],
      },
      { role: "tool", toolCallId: "a_b", name: "get_weather", content: "30" },
      { role: "tool", toolCallId: "a.b", name: "get_weather", content: "35" },
    ];
    const [, reply, results] = toAnthropicPrompt(messages).messages;
    const ids = ((reply?.content ?? []) as { id?: string }[]).map((block) => block.id);
    const answered = ((results?.content ?? []) as { tool_use_id?: string }[]).map((block) => block.tool_use_id);
    expect(ids).toEqual(["a_b", "a_b_1"]);
    expect(answered).toEqual(["a_b", "a_b_1"]);
    expect(toAnthropicPrompt(messages)).toEqual(toAnthropicPrompt(messages));
  });
});

describe("toAnthropicTools", () => {
  it("maps each spec to a tool with an input_schema and fills in missing properties", () => {
    const tools: ToolSpec[] = [
      {
        name: "get_weather",
        description: "Weather.",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
      { name: "ping", description: "Ping.", parameters: { type: "object" } },
    ];
    expect(toAnthropicTools(tools)).toEqual([
      {
        name: "get_weather",
        description: "Weather.",
        input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
      { name: "ping", description: "Ping.", input_schema: { type: "object", properties: {} } },
    ]);
  });
});
