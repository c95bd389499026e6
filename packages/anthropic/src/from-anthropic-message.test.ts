import type { Message } from "@agentloop/core";
import type { Message as AnthropicMessage } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { AnthropicResponseError } from "./errors.js";
import { fromAnthropicMessage } from "./from-anthropic-message.js";

const shown: Message[] = [{ role: "user", content: "u" }];

function reply(content: unknown[], extra: Record<string, unknown> = {}): AnthropicMessage {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content,
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 40, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    ...extra,
  } as AnthropicMessage;
}

const use = (id: unknown, name: string, input: unknown) => ({
  type: "tool_use",
  id,
  name,
  input,
  caller: { type: "direct" },
});

describe("fromAnthropicMessage", () => {
  it("maps text and tool use in one reply, in order, and the usage", () => {
    expect(
      fromAnthropicMessage(
        reply([
          { type: "text", text: "Both.", citations: null },
          use("toolu_a", "get_weather", { city: "Pune" }),
          use("toolu_b", "get_weather", { city: "Delhi" }),
        ]),
        shown,
      ),
    ).toEqual({
      content: "Both.",
      toolCalls: [
        { id: "toolu_a", name: "get_weather", args: { city: "Pune" } },
        { id: "toolu_b", name: "get_weather", args: { city: "Delhi" } },
      ],
      usage: { inputTokens: 40, outputTokens: 9 },
    });
  });

  it("joins text blocks, keeps thinking blocks as reasoning, and counts cached input tokens as input, reported apart too", () => {
    const mapped = fromAnthropicMessage(
      reply(
        [
          { type: "thinking", thinking: "hmm", signature: "s" },
          { type: "text", text: "It is " },
          { type: "text", text: "86 F." },
        ],
        {
          usage: { input_tokens: 5, output_tokens: 3, cache_creation_input_tokens: 100, cache_read_input_tokens: 20 },
        },
      ),
      shown,
    );
    expect(mapped).toEqual({
      content: "It is 86 F.",
      toolCalls: [],
      usage: { inputTokens: 125, outputTokens: 3, cachedInputTokens: 20, cacheWriteTokens: 100 },
      reasoning: [{ type: "reasoning", text: "hmm", signature: "s" }],
    });
  });

  it("keeps an input that is not an object as rawArgs, and replaces missing or malformed ids", () => {
    const mapped = fromAnthropicMessage(
      reply([use(undefined, "get_weather", "Pune"), use("bad id", "c_to_f", { celsius: 30 })]),
      shown,
    );
    expect(mapped.toolCalls).toStrictEqual([
      { id: "call_1_0", name: "get_weather", args: {}, rawArgs: '"Pune"' },
      { id: "call_1_1", name: "c_to_f", args: { celsius: 30 } },
    ]);
  });

  it("maps a reply cut off by max_tokens with finishReason length, and leaves usage out when there is none", () => {
    expect(
      fromAnthropicMessage(
        reply([{ type: "text", text: "It is 8" }], { stop_reason: "max_tokens", usage: undefined }),
        shown,
      ),
    ).toStrictEqual({
      content: "It is 8",
      toolCalls: [],
      finishReason: "length",
    });
  });

  it("throws AnthropicResponseError when there is no content array", () => {
    expect(() => fromAnthropicMessage(reply([], { content: undefined }), shown)).toThrow(AnthropicResponseError);
  });
});

describe("fromAnthropicMessage's reasoning and stop reasons", () => {
  it("keeps thinking and redacted thinking in order, a thinking block without a signature as unsigned", () => {
    const mapped = fromAnthropicMessage(
      reply([
        { type: "thinking", thinking: "a", signature: "s1" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "thinking", thinking: "b" },
        { type: "text", text: "x" },
      ]),
      shown,
    );
    expect(mapped.reasoning).toStrictEqual([
      { type: "reasoning", text: "a", signature: "s1" },
      { type: "redacted-reasoning", data: "opaque" },
      { type: "reasoning", text: "b" },
    ]);
  });

  it.each([
    ["end_turn", undefined],
    ["tool_use", undefined],
    ["stop_sequence", undefined],
    ["max_tokens", "length"],
    ["model_context_window_exceeded", "length"],
    ["refusal", "refusal"],
    ["pause_turn", "other"],
    ["a_future_reason", "other"],
  ])("stop_reason %s gives finishReason %s", (stopReason, finishReason) => {
    expect(
      fromAnthropicMessage(reply([{ type: "text", text: "x" }], { stop_reason: stopReason }), shown).finishReason,
    ).toBe(finishReason);
  });
});
