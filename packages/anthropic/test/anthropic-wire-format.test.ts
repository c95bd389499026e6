import type { RecordedRequest } from "@agentloop/provider-testkit";
import { describe, expect, it } from "vitest";
import { checkMessagesRequest } from "./anthropic-wire-format.js";

function request(body: unknown, headers: Record<string, string> = {}): RecordedRequest {
  return {
    method: "POST",
    path: "/v1/messages",
    headers: { authorization: "Bearer sk-ant-test", "anthropic-version": "2026-10-21", ...headers },
    body,
    abandoned: new Promise(() => {}),
  };
}

const tool = {
  name: "get_weather",
  description: "Weather.",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const use = (id: string) => ({ type: "tool_use", id, name: "get_weather", input: { city: "Pune" } });
const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "1" });
const valid = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  system: "Use the tools.",
  tools: [tool],
  messages: [
    { role: "user", content: "u" },
    { role: "assistant", content: [{ type: "text", text: "Both." }, use("a"), use("b")] },
    { role: "user", content: [result("a"), result("b")] },
  ],
};
type Body = typeof valid;

describe("the fake server's Messages API validator", () => {
  it("accepts thinking and redacted thinking blocks in an assistant turn, and a streamed request", () => {
    const thinking = { type: "thinking", thinking: "t", signature: "sig" };
    const redacted = { type: "redacted_thinking", data: "opaque" };
    const body = structuredClone(valid);
    body.messages[1] = { role: "assistant", content: [thinking, redacted, use("a"), use("b")] } as never;
    expect(checkMessagesRequest(request({ ...body, stream: true }))).toEqual([]);
  });

  it("accepts a well-formed request, with either key header", () => {
    expect(checkMessagesRequest(request(valid))).toEqual([]);
    expect(checkMessagesRequest(request(valid, { authorization: "", "x-api-key": "sk-ant-test" }))).toEqual([]);
  });

  const turns = (b: Body, ...messages: unknown[]) => ({ ...b, messages });
  it.each<[string, (b: Body) => unknown, RegExp]>([
    ["a stream flag that is not a boolean", (b) => ({ ...b, stream: "yes" }), /stream: must be one of/],
    ["a missing max_tokens", ({ max_tokens: _, ...b }) => b, /missing 'max_tokens'/],
    [
      "OpenAI's field names",
      (b) => ({ ...b, tools: [{ type: "function", function: tool }] }),
      /unexpected key 'function'/,
    ],
    [
      "parameters instead of input_schema",
      (b) => ({ ...b, tools: [{ name: tool.name, description: "d", parameters: tool.input_schema }] }),
      /missing 'input_schema'/,
    ],
    [
      "a system message among the turns",
      (b) => turns(b, { role: "system", content: "s" }, ...b.messages),
      /must be 'user'/,
    ],
    ["a first turn that is not the user's", (b) => turns(b, ...b.messages.slice(1)), /must be 'user'/],
    ["two user turns in a row", (b) => turns(b, b.messages[0], b.messages[0]), /must be 'assistant'/],
    [
      "an empty text block",
      (b) => turns(b, { role: "user", content: [{ type: "text", text: " " }] }),
      /text content blocks must be non-empty/,
    ],
    [
      "an empty user message",
      (b) => turns(b, { role: "user", content: "" }),
      /messages.0: all messages must have non-empty content except for the optional final assistant message/,
    ],
    [
      "results split over two turns",
      (b) => turns(b, b.messages[0], b.messages[1], { role: "user", content: [result("a")] }),
      /messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: b. Each `tool_use` block must have a corresponding `tool_result` block in the next message./,
    ],
    [
      "results out of call order",
      (b) => turns(b, b.messages[0], b.messages[1], { role: "user", content: [result("b"), result("a")] }),
      /not in call order/,
    ],
    [
      "a result for an unknown id",
      (b) => turns(b, b.messages[0], b.messages[1], { role: "user", content: [result("a"), result("b"), result("z")] }),
      /messages.2.content: unexpected `tool_use_id` found in `tool_result` blocks: z/,
    ],
    [
      "text before the results",
      (b) =>
        turns(b, b.messages[0], b.messages[1], {
          role: "user",
          content: [{ type: "text", text: "x" }, result("a"), result("b")],
        }),
      /must come before any text/,
    ],
    [
      "a tool_use id the API refuses",
      (b) =>
        turns(
          b,
          b.messages[0],
          { role: "assistant", content: [use("call 1")] },
          { role: "user", content: [result("call 1")] },
        ),
      /must match/,
    ],
    [
      "a reused tool_use id",
      (b) =>
        turns(b, ...b.messages, { role: "assistant", content: [use("a")] }, { role: "user", content: [result("a")] }),
      /used by an earlier tool_use/,
    ],
    [
      "input that is not an object",
      (b) =>
        turns(
          b,
          b.messages[0],
          { role: "assistant", content: [{ ...use("a"), input: "Pune" }] },
          { role: "user", content: [result("a")] },
        ),
      /input: must be an object/,
    ],
    [
      "a conversation ending on the assistant",
      (b) => turns(b, ...b.messages.slice(0, 2)),
      /last turn must be the user's/,
    ],
    [
      "tool_choice without tools",
      ({ tools: _, ...b }) => ({ ...b, tool_choice: { type: "auto" }, messages: [b.messages[0]] }),
      /tool_choice/,
    ],
  ])("reports %s", (_name, change, problem) => {
    expect(checkMessagesRequest(request(change(structuredClone(valid)))).join("\n")).toMatch(problem);
  });

  it("reports a missing key and a missing API version", () => {
    const problems = checkMessagesRequest({ ...request(valid), headers: {} }).join("\n");
    expect(problems).toMatch(/no key/);
    expect(problems).toMatch(/anthropic-version/);
  });
});
