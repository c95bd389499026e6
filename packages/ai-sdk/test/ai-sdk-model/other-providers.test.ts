import { type AgentStreamEvent, MemoryEventStore, runAgent } from "@agentloop/core";
import { deltaMismatches, makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import { createAmazonBedrock } from "@ai-sdk/amazon-bedrock";
import { createMistral } from "@ai-sdk/mistral";
import { createOpenAI } from "@ai-sdk/openai";
import { describe, expect, it } from "vitest";
import { type AiSdkModel, aiSdkModel } from "../../src/index.js";
import {
  ANSWER_EVENTS_BEDROCK,
  BEDROCK_ANSWER,
  BEDROCK_SIGNATURE,
  eventStream,
  isBedrockStream,
  REASONING_CALL,
  REASONING_CALL_EVENTS,
} from "./bedrock-replies.js";
import { type ProviderReply, providerFetch, type RecordedCall } from "./provider-fetch.js";

/** Runs the weather task to its answer, streamed or not, and returns what was logged and sent. */
async function weatherRun(model: AiSdkModel, streamed: boolean) {
  const events: AgentStreamEvent[] = [];
  const store = new MemoryEventStore();
  const { registry, runs } = makeWeatherRegistry();
  const result = await runAgent(WEATHER_TASK, model, registry, {
    store,
    runId: "p",
    tokenBudget: 1_000_000,
    ...(streamed ? { onEvent: (event: AgentStreamEvent) => events.push(event) } : {}),
  });
  const usages = (await store.read("p")).flatMap((event) =>
    event.type === "model.replied" ? [event.reply.usage] : [],
  );
  return { result, runs, usages, mismatches: deltaMismatches(events) };
}

const ask = (body: RecordedCall["body"] | undefined, key: string) => body?.[key] as Record<string, unknown>[];

describe("Bedrock Converse through aiSdkModel (@ai-sdk/amazon-bedrock)", () => {
  const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
  for (const streamed of [false, true]) {
    it(`sends the reasoning signature back and counts cache reads and writes${streamed ? " (event stream)" : ""}`, async () => {
      const replies: ProviderReply[] = streamed
        ? [{ events: REASONING_CALL_EVENTS }, { events: ANSWER_EVENTS_BEDROCK }]
        : [{ json: REASONING_CALL }, { json: BEDROCK_ANSWER }];
      const fake = providerFetch(replies, isBedrockStream, eventStream);
      const bedrock = createAmazonBedrock({ region: "us-east-1", apiKey: "test-bearer-token", fetch: fake.fetch });
      const model = aiSdkModel(bedrock(MODEL), {
        providerOptions: { bedrock: { reasoningConfig: { type: "enabled", budgetTokens: 1024 } } },
      });
      const { result, runs, usages, mismatches } = await weatherRun(model, streamed);
      expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 2 });
      expect(runs).toEqual([["get_weather", "Pune"]]);
      expect(fake.calls.map((call) => new URL(call.url).pathname)).toEqual(
        Array(2).fill(`/model/${encodeURIComponent(MODEL)}/${streamed ? "converse-stream" : "converse"}`),
      );
      const assistant = ask(fake.calls[1]?.body, "messages").find((message) => message.role === "assistant");
      expect(assistant?.content).toMatchObject([
        { reasoningContent: { reasoningText: { text: "Celsius first, then convert.", signature: BEDROCK_SIGNATURE } } },
        { toolUse: { toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "get_weather", input: { city: "Pune" } } },
      ]);
      expect(usages[0]).toEqual({ inputTokens: 1420, outputTokens: 96, cachedInputTokens: 900, cacheWriteTokens: 100 });
      expect(mismatches).toEqual([]);
    });
  }
});

describe("Mistral through aiSdkModel (@ai-sdk/mistral)", () => {
  const CALL = {
    id: "cmpl-e5cc70bb28c444948073e77776eb30ef",
    object: "chat.completion",
    created: 1765056000,
    model: "mistral-large-latest",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "D681PevKs", type: "function", function: { name: "get_weather", arguments: '{"city": "Pune"}' } },
          ],
        },
        finish_reason: "tool_calls",
      },
    ],
    usage: { prompt_tokens: 91, completion_tokens: 21, total_tokens: 112 },
  };
  const ANSWER = {
    ...CALL,
    id: "cmpl-0c8d0e9d6a4f4f4f8a3b2c1d0e9f8a7b",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "It is 86 F in Pune.", tool_calls: null },
        finish_reason: "stop",
      },
    ],
    usage: { prompt_tokens: 140, completion_tokens: 9, total_tokens: 149 },
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: Record<string, number>) => ({
    id: CALL.id,
    object: "chat.completion.chunk",
    created: CALL.created,
    model: CALL.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  });
  const CALL_STREAM = [
    chunk({ role: "assistant", content: "" }, null),
    chunk(
      {
        content: "",
        tool_calls: [{ id: "D681PevKs", function: { name: "get_weather", arguments: '{"city": "Pune"}' }, index: 0 }],
      },
      "tool_calls",
      CALL.usage,
    ),
    "[DONE]",
  ];
  const ANSWER_STREAM = [
    chunk({ role: "assistant", content: "It is 86 F " }, null),
    chunk({ content: "in Pune." }, "stop", ANSWER.usage),
    "[DONE]",
  ];

  for (const streamed of [false, true]) {
    it(`runs the tool and answers, the call's id going back with its result${streamed ? " (streamed)" : ""}`, async () => {
      const replies: ProviderReply[] = streamed
        ? [{ events: CALL_STREAM }, { events: ANSWER_STREAM }]
        : [{ json: CALL }, { json: ANSWER }];
      const fake = providerFetch(replies, (_url, body) => body.stream === true);
      const mistral = createMistral({ apiKey: "test-key", fetch: fake.fetch });
      const model = aiSdkModel(mistral("mistral-large-latest"));
      expect(model.modelName).toBe("mistral.chat/mistral-large-latest");
      const { result, runs, usages, mismatches } = await weatherRun(model, streamed);
      expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 2 });
      expect(runs).toEqual([["get_weather", "Pune"]]);
      const messages = ask(fake.calls[1]?.body, "messages");
      expect(messages.slice(-2)).toMatchObject([
        { role: "assistant", tool_calls: [{ id: "D681PevKs", function: { name: "get_weather" } }] },
        { role: "tool", tool_call_id: "D681PevKs", content: '{"city":"Pune","celsius":30}' },
      ]);
      expect(usages).toEqual([
        { inputTokens: 91, outputTokens: 21 },
        { inputTokens: 140, outputTokens: 9 },
      ]);
      expect(mismatches).toEqual([]);
    });
  }
});

describe("OpenAI through aiSdkModel (@ai-sdk/openai)", () => {
  const REASONING_CALL_RESPONSE = {
    id: "resp_68c1f6f2a1e081909c4a3b7c2d1e0f9a",
    object: "response",
    created_at: 1765056000,
    status: "completed",
    model: "gpt-5-2025-08-07",
    output: [
      {
        type: "reasoning",
        id: "rs_68c1f6f3b2e48190a7b6c5d4e3f2a1b0",
        summary: [{ type: "summary_text", text: "Need Pune's temperature first." }],
        encrypted_content: "gAAAAABowx8zEnc_encrypted_reasoning_stand_in",
      },
      {
        type: "function_call",
        id: "fc_68c1f6f4c3f58190b8c7d6e5f4a3b2c1",
        call_id: "call_qZ8Jx7kGm2",
        name: "get_weather",
        arguments: '{"city":"Pune"}',
        status: "completed",
      },
    ],
    incomplete_details: null,
    usage: {
      input_tokens: 320,
      input_tokens_details: { cached_tokens: 256 },
      output_tokens: 150,
      output_tokens_details: { reasoning_tokens: 128 },
      total_tokens: 470,
    },
  };
  const ANSWER_RESPONSE = {
    ...REASONING_CALL_RESPONSE,
    id: "resp_68c1f6f9d4a68190c9d8e7f6a5b4c3d2",
    output: [
      {
        type: "message",
        id: "msg_68c1f6fae5b78190dae9f8a7b6c5d4e3",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "It is 86 F in Pune.", annotations: [] }],
      },
    ],
    usage: {
      input_tokens: 400,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 410,
    },
  };

  it("sends the reasoning item back before its function call (stateless, with the encrypted reasoning), and reads reasoning tokens", async () => {
    const fake = providerFetch([{ json: REASONING_CALL_RESPONSE }, { json: ANSWER_RESPONSE }], () => false);
    const openai = createOpenAI({ apiKey: "test-key", fetch: fake.fetch });
    const model = aiSdkModel(openai("gpt-5"), {
      providerOptions: { openai: { store: false, include: ["reasoning.encrypted_content"] } },
    });
    const { result, usages } = await weatherRun(model, false);
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 2 });
    const input = ask(fake.calls[1]?.body, "input");
    const reasoningAt = input.findIndex((item) => item.type === "reasoning");
    const callAt = input.findIndex((item) => item.type === "function_call");
    expect(input[reasoningAt]).toMatchObject({
      id: "rs_68c1f6f3b2e48190a7b6c5d4e3f2a1b0",
      encrypted_content: "gAAAAABowx8zEnc_encrypted_reasoning_stand_in",
      summary: [{ type: "summary_text", text: "Need Pune's temperature first." }],
    });
    expect(callAt).toBe(reasoningAt + 1);
    expect(input[callAt]).toMatchObject({ call_id: "call_qZ8Jx7kGm2", name: "get_weather" });
    expect(usages[0]).toEqual({ inputTokens: 320, outputTokens: 150, cachedInputTokens: 256, reasoningTokens: 128 });
  });

  it("streams a chat completions model's reply, text and call, as deltas that add up", async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: Record<string, unknown>) => ({
      id: "chatcmpl-C1",
      object: "chat.completion.chunk",
      created: 1765056000,
      model: "gpt-4.1-mini-2025-04-14",
      choices: usage === undefined ? [{ index: 0, delta, finish_reason: finish }] : [],
      ...(usage === undefined ? {} : { usage }),
    });
    const usage = {
      prompt_tokens: 80,
      completion_tokens: 18,
      total_tokens: 98,
      prompt_tokens_details: { cached_tokens: 64 },
    };
    const call = [
      chunk(
        {
          role: "assistant",
          content: null,
          tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }],
        },
        null,
      ),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, null),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Pune"}' } }] }, null),
      chunk({}, "tool_calls"),
      chunk({}, null, usage),
      "[DONE]",
    ];
    const answer = [
      chunk({ role: "assistant", content: "It is 86 F " }, null),
      chunk({ content: "in Pune." }, null),
      chunk({}, "stop"),
      chunk({}, null, usage),
      "[DONE]",
    ];
    const fake = providerFetch([{ events: call }, { events: answer }], (_url, body) => body.stream === true);
    const openai = createOpenAI({ apiKey: "test-key", fetch: fake.fetch });
    const { result, usages, mismatches } = await weatherRun(aiSdkModel(openai.chat("gpt-4.1-mini")), true);
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 2 });
    expect(mismatches).toEqual([]);
    expect(usages[0]).toEqual({ inputTokens: 80, outputTokens: 18, cachedInputTokens: 64 });
  });
});
