import type { RecordedRequest } from "@agentloop/provider-testkit";
import { describe, expect, it } from "vitest";
import { checkChatCompletionRequest } from "./openai-wire-format.js";

function request(body: unknown, path = "/v1/chat/completions"): RecordedRequest {
  return { method: "POST", path, headers: { authorization: "Bearer sk-test" }, body, abandoned: new Promise(() => {}) };
}

const tool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const call = (id: string) => ({ id, type: "function", function: { name: "get_weather", arguments: "{}" } });
const valid = {
  model: "gpt-4.1-mini",
  tools: [tool],
  messages: [
    { role: "system", content: "s" },
    { role: "user", content: "u" },
    { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
    { role: "tool", tool_call_id: "a", content: "1" },
    { role: "tool", tool_call_id: "b", content: "2" },
  ],
};

function problemsWith(change: (body: typeof valid) => unknown): string[] {
  return checkChatCompletionRequest(request(change(structuredClone(valid))));
}

describe("the fake server's Chat Completions validator", () => {
  it("accepts a well-formed request, streamed or not", () => {
    expect(checkChatCompletionRequest(request(valid))).toEqual([]);
    const streamed = { ...valid, stream: true, stream_options: { include_usage: true } };
    expect(checkChatCompletionRequest(request(streamed))).toEqual([]);
  });

  it("takes each compatible server's reasoning field on assistant messages, and OpenAI none", () => {
    const withField = (field: string) => {
      const body = structuredClone(valid) as { messages: Record<string, unknown>[] };
      body.messages[2] = { ...body.messages[2], [field]: "thinking" };
      return request(body);
    };
    expect(checkChatCompletionRequest(withField("reasoning_content"), "deepseek")).toEqual([]);
    expect(checkChatCompletionRequest(withField("reasoning"), "vllm")).toEqual([]);
    expect(checkChatCompletionRequest(withField("reasoning"), "deepseek").join()).toMatch(/unexpected key 'reasoning'/);
    expect(checkChatCompletionRequest(withField("reasoning_content")).join()).toMatch(
      /unexpected key 'reasoning_content'/,
    );
  });

  it.each<[string, (body: typeof valid) => unknown, RegExp]>([
    ["a wrong route", (b) => b, /route/],
    ["several choices", (b) => ({ ...b, n: 2 }), /n: must be one of \[1\]/],
    [
      "stream_options without stream",
      (b) => ({ ...b, stream_options: { include_usage: true } }),
      /only allowed with stream/,
    ],
    ["an unknown field", (b) => ({ ...b, toolSpecs: [] }), /unexpected key 'toolSpecs'/],
    ["an empty tools array", (b) => ({ ...b, tools: [] }), /tools: must not be empty/],
    [
      "tool_choice without tools",
      (b) => ({ model: b.model, messages: b.messages.slice(0, 2), tool_choice: "auto" }),
      /tool_choice/,
    ],
    [
      "a bad tool name",
      (b) => ({ ...b, tools: [{ ...tool, function: { ...tool.function, name: "get weather" } }] }),
      /name: must match/,
    ],
    [
      "a schema type the API does not take here",
      (b) => ({
        ...b,
        tools: [{ ...tool, function: { ...tool.function, parameters: { type: "array", properties: {} } } }],
      }),
      /parameters.type/,
    ],
    [
      "required naming no property",
      (b) => ({
        ...b,
        tools: [
          { ...tool, function: { ...tool.function, parameters: { type: "object", properties: {}, required: ["x"] } } },
        ],
      }),
      /names no property/,
    ],
    [
      "the system prompt not first",
      (b) => ({ ...b, messages: [b.messages[1], b.messages[0]] }),
      /system prompt must be the first/,
    ],
    [
      "our own message shape",
      (b) => ({ ...b, messages: [...b.messages.slice(0, 2), { role: "assistant", content: "", toolCalls: [] }] }),
      /unexpected key 'toolCalls'/,
    ],
    [
      "a missing tool result",
      (b) => ({ ...b, messages: b.messages.slice(0, 4) }),
      /must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: b/,
    ],
    [
      "a result for an unknown id",
      (b) => ({ ...b, messages: [...b.messages.slice(0, 4), { role: "tool", tool_call_id: "z", content: "2" }] }),
      /messages with role 'tool' must be a response to a preceeding message with 'tool_calls'/,
    ],
    [
      "a result answered twice",
      (b) => ({ ...b, messages: [...b.messages, { role: "tool", tool_call_id: "a", content: "3" }] }),
      /'a' answers no open call/,
    ],
    [
      "a user message between calls and results",
      (b) => ({ ...b, messages: [...b.messages.slice(0, 3), { role: "user", content: "x" }, ...b.messages.slice(3)] }),
      /tool_call_ids did not have response messages: a, b/,
    ],
    [
      "an empty call id",
      (b) => ({
        ...b,
        messages: [...b.messages.slice(0, 2), { role: "assistant", content: null, tool_calls: [call("")] }],
      }),
      /id: must not be empty/,
    ],
    [
      "arguments as an object",
      (b) => ({
        ...b,
        messages: [
          ...b.messages.slice(0, 2),
          { role: "assistant", content: null, tool_calls: [{ ...call("a"), function: { name: "x", arguments: {} } }] },
          b.messages[3],
        ],
      }),
      /arguments: must be a string/,
    ],
    [
      "a tool message with a name",
      (b) => ({
        ...b,
        messages: [...b.messages.slice(0, 3), { ...b.messages[3], name: "get_weather" }, b.messages[4]],
      }),
      /unexpected key 'name'/,
    ],
  ])("reports %s", (name, change, problem) => {
    const problems =
      name === "a wrong route" ? checkChatCompletionRequest(request(valid, "/v1/completions")) : problemsWith(change);
    expect(problems.join("\n")).toMatch(problem);
  });
});
