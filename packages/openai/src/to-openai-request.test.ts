import type { Message, ToolSpec } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { toOpenAIMessages, toOpenAITools } from "./to-openai-request.js";

describe("toOpenAIMessages", () => {
  it("maps every role one for one, in order", () => {
    const messages: Message[] = [
      { role: "system", content: "Use the tools." },
      { role: "user", content: "How hot is Pune?" },
      {
        role: "assistant",
        content: "Looking.",
        toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Pune" } }],
      },
      { role: "tool", toolCallId: "c1", name: "get_weather", content: '{"celsius":30}' },
      { role: "assistant", content: "30 C.", toolCalls: [] },
    ];
    expect(toOpenAIMessages(messages)).toEqual([
      { role: "system", content: "Use the tools." },
      { role: "user", content: "How hot is Pune?" },
      {
        role: "assistant",
        content: "Looking.",
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Pune"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: '{"celsius":30}' },
      { role: "assistant", content: "30 C." },
    ]);
  });

  it("sends null content beside tool calls, and valid JSON for arguments that were not an object", () => {
    const [assistant] = toOpenAIMessages([
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "t", args: {}, rawArgs: '{"a": ' }] },
    ]);
    expect(assistant).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: "{}" } }],
    });
  });
});

describe("toOpenAITools", () => {
  it("wraps each spec as a function tool and fills in missing properties", () => {
    const tools: ToolSpec[] = [
      {
        name: "get_weather",
        description: "Weather.",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
      { name: "ping", description: "Ping.", parameters: { type: "object" } },
    ];
    expect(toOpenAITools(tools)).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather.",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
      {
        type: "function",
        function: { name: "ping", description: "Ping.", parameters: { type: "object", properties: {} } },
      },
    ]);
  });
});
