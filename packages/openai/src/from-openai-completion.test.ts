import type { Message } from "@agentloop/core";
import type { ChatCompletion } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { OpenAIResponseError } from "./errors.js";
import { fromOpenAICompletion } from "./from-openai-completion.js";

const shown: Message[] = [
  { role: "system", content: "s" },
  { role: "user", content: "u" },
];

function completion(message: Record<string, unknown>, extra: Record<string, unknown> = {}): ChatCompletion {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-test",
    choices: [
      { index: 0, finish_reason: "stop", logprobs: null, message: { role: "assistant", refusal: null, ...message } },
    ],
    ...extra,
  } as ChatCompletion;
}

function call(id: string | undefined, name: string, args: string): Record<string, unknown> {
  return { ...(id === undefined ? {} : { id }), type: "function", function: { name, arguments: args } };
}

describe("fromOpenAICompletion", () => {
  it("maps text and several tool calls of one reply, and the usage", () => {
    const reply = fromOpenAICompletion(
      completion(
        {
          content: "Looking both up.",
          tool_calls: [call("a", "get_weather", '{"city":"Pune"}'), call("b", "get_weather", '{"city":"Delhi"}')],
        },
        { usage: { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57 } },
      ),
      shown,
    );
    expect(reply).toEqual({
      content: "Looking both up.",
      toolCalls: [
        { id: "a", name: "get_weather", args: { city: "Pune" } },
        { id: "b", name: "get_weather", args: { city: "Delhi" } },
      ],
      usage: { inputTokens: 50, outputTokens: 7 },
    });
  });

  it("maps a final answer with no usage to a reply without usage", () => {
    expect(fromOpenAICompletion(completion({ content: "86 F." }), shown)).toStrictEqual({
      content: "86 F.",
      toolCalls: [],
    });
  });

  it("keeps arguments that are not a JSON object as rawArgs and gives missing or empty ids positional ones", () => {
    const reply = fromOpenAICompletion(
      completion({
        content: null,
        tool_calls: [call("", "get_weather", '{"city": "Pu'), call(undefined, "c_to_f", "{}")],
      }),
      shown,
    );
    expect(reply.toolCalls).toStrictEqual([
      { id: "call_2_0", name: "get_weather", args: {}, rawArgs: '{"city": "Pu' },
      { id: "call_2_1", name: "c_to_f", args: {} },
    ]);
    expect(reply.content).toBe("");
  });

  it("treats a refusal as the reply's text, with finishReason refusal", () => {
    expect(
      fromOpenAICompletion(completion({ content: null, refusal: "I can't help with that." }), shown),
    ).toStrictEqual({
      content: "I can't help with that.",
      toolCalls: [],
      finishReason: "refusal",
    });
  });

  it("maps a reply cut off by the length limit with finishReason length, and a filtered one with content-filter", () => {
    const cut = completion({ content: "It is 86" });
    const choice = cut.choices[0];
    if (choice) choice.finish_reason = "length";
    expect(fromOpenAICompletion(cut, shown)).toStrictEqual({
      content: "It is 86",
      toolCalls: [],
      finishReason: "length",
    });
    if (choice) choice.finish_reason = "content_filter";
    expect(fromOpenAICompletion(cut, shown).finishReason).toBe("content-filter");
  });

  it("ignores usage it cannot read instead of inventing numbers", () => {
    const reply = fromOpenAICompletion(
      completion({ content: "x" }, { usage: { prompt_tokens: -1, completion_tokens: 2 } }),
      shown,
    );
    expect(reply.usage).toBeUndefined();
  });

  it("reports prompt_tokens_details.cached_tokens as cachedInputTokens, counted in inputTokens as OpenAI bills it", () => {
    const usage = (details: unknown) =>
      fromOpenAICompletion(
        completion(
          { content: "x" },
          {
            usage: { prompt_tokens: 2006, completion_tokens: 300, total_tokens: 2306, prompt_tokens_details: details },
          },
        ),
        shown,
      ).usage;
    expect(usage({ cached_tokens: 1920, audio_tokens: 0 })).toEqual({
      inputTokens: 2006,
      outputTokens: 300,
      cachedInputTokens: 1920,
    });
    // None cached, no details, or a count that cannot be: the plain usage.
    for (const details of [{ cached_tokens: 0 }, undefined, null, { cached_tokens: 5000 }, { cached_tokens: -1 }]) {
      expect(usage(details)).toEqual({ inputTokens: 2006, outputTokens: 300 });
    }
  });

  it("throws OpenAIResponseError with the body as cause when there is no choice", () => {
    const body = { ...completion({ content: "x" }), choices: [] };
    expect(() => fromOpenAICompletion(body, shown)).toThrow(OpenAIResponseError);
    try {
      fromOpenAICompletion(body, shown);
    } catch (error) {
      expect((error as Error).cause).toBe(body);
    }
  });
});

describe("fromOpenAICompletion's reasoning and finish reasons", () => {
  it("reads reasoning_content before reasoning, keeps an empty one, and ignores a null one", () => {
    const both = completion({ content: "x", reasoning_content: "deep", reasoning: "alias" });
    expect(fromOpenAICompletion(both, shown).reasoning).toEqual([{ type: "reasoning", text: "deep" }]);
    expect(fromOpenAICompletion(completion({ content: "x", reasoning: "vllm" }), shown).reasoning).toEqual([
      { type: "reasoning", text: "vllm" },
    ]);
    expect(fromOpenAICompletion(completion({ content: "x", reasoning_content: "" }), shown).reasoning).toEqual([
      { type: "reasoning", text: "" },
    ]);
    expect(fromOpenAICompletion(completion({ content: "x", reasoning_content: null }), shown)).not.toHaveProperty(
      "reasoning",
    );
  });

  it.each([
    ["stop", undefined],
    ["tool_calls", undefined],
    ["tool", undefined],
    [null, undefined],
    ["length", "length"],
    ["content_filter", "content-filter"],
    ["abort", "other"],
  ])("finish_reason %s gives finishReason %s", (reason, finishReason) => {
    const body = completion({ content: "x" });
    const choice = body.choices[0] as { finish_reason: unknown } | undefined;
    if (choice) choice.finish_reason = reason;
    expect(fromOpenAICompletion(body, shown).finishReason).toBe(finishReason);
  });

  it("reads a flat { name, arguments } call as a function call", () => {
    const reply = fromOpenAICompletion(
      completion({ content: null, tool_calls: [{ name: "t", arguments: '{"a":1}' }] }),
      shown,
    );
    expect(reply.toolCalls).toStrictEqual([{ id: "call_2_0", name: "t", args: { a: 1 } }]);
  });
});
