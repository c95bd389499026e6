import { type Message, runAgent } from "@agentloop/core";
import {
  type FakeResponse,
  type FakeStep,
  makeWeatherRegistry,
  type RecordedRequest,
  WEATHER_TASK,
} from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { openaiModel } from "../src/index.js";
import { completion, type FakeOpenAI, MODEL, startFakeOpenAI } from "./fake-openai.js";
import {
  deepseekAnswer,
  deepseekCutWhileThinking,
  deepseekToolCall,
  llamacppDocsFlatCall,
  lmstudioToolCall,
  ollamaToolCall,
  vllmToolCall,
} from "./fixtures/compatible.js";
import { cutOffCall, parallelCalls, refusal, textWithUsageDetails } from "./fixtures/openai.js";
import type { Dialect } from "./openai-wire-format.js";

// Real bodies (see fixtures/) served from 127.0.0.1 by a fake that plays each server and refuses,
// in the server's words, what the server refuses.

let server: FakeOpenAI | undefined;

async function serve(dialect: Dialect, ...steps: FakeStep[]): Promise<FakeOpenAI> {
  server = await startFakeOpenAI(steps, { dialect });
  return server;
}

afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests the server would refuse").toEqual([]);
});

const ok = (body: unknown): FakeResponse => ({ status: 200, body });
const messagesOf = (request: RecordedRequest | undefined) =>
  (request?.body as { messages?: Record<string, unknown>[] } | undefined)?.messages ?? [];
const signal = new AbortController().signal;
const start: Message[] = [{ role: "user", content: WEATHER_TASK }];

async function run(fake: FakeOpenAI, options: Partial<Parameters<typeof openaiModel>[0]> = {}) {
  const { registry, runs } = makeWeatherRegistry();
  const result = await runAgent(
    WEATHER_TASK,
    openaiModel({ client: fake.client(), model: MODEL, ...options }),
    registry,
  );
  return { result, runs };
}

describe("OpenAI's recorded replies", () => {
  it("parallel calls with content null run both tools, and the usage is read past its details", async () => {
    const fake = await serve("openai", ok(parallelCalls), ok(textWithUsageDetails));
    const { result, runs } = await run(fake);
    expect(runs).toEqual([
      ["get_weather", "Pune"],
      ["get_weather", "Delhi"],
    ]);
    expect(result.messages[2]).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [
        { id: "call_fdNz3vOBKYgOIpMdWotB9MjY", name: "get_weather", args: { city: "Pune" } },
        { id: "call_h1DWI1POMJLb0KwIyQHWXD4p", name: "get_weather", args: { city: "Delhi" } },
      ],
    });
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", tokens: 149 + 60 + 16 + 363 });
  });

  it("a refusal ends the run as refused, its text as the content, not as an ordinary answer", async () => {
    const fake = await serve("openai", ok(refusal));
    const { result } = await run(fake);
    expect(result.status).toBe("refused");
    expect(result.messages.at(-1)).toEqual({
      role: "assistant",
      content: "I'm very sorry, but I can't assist with that.",
      toolCalls: [],
      finishReason: "refusal",
    });
  });

  it("a call cut off at max tokens is told to the model and goes back as valid JSON (a server with Ollama's rules accepts it)", async () => {
    const fake = await serve("ollama", ok(cutOffCall), ok(textWithUsageDetails));
    const { result, runs } = await run(fake);
    expect(runs).toEqual([]);
    expect(result.messages[2]).toMatchObject({
      toolCalls: [{ id: "call_CUdUoJpsWWVdxXntucvnol1M", name: "get_weather", args: {}, rawArgs: '{"' }],
      finishReason: "length",
    });
    expect(result.messages[3]?.content).toMatch(/^ERROR: the arguments of 'get_weather' are not a valid JSON object/);
    const sent = messagesOf(fake.requests[1])[2] as { tool_calls: { function: { arguments: string } }[] };
    expect(sent.tool_calls[0]?.function.arguments).toBe("{}");
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
  });
});

describe("compatible servers' replies", () => {
  it("DeepSeek thinking mode: reasoning_content goes back with its tool call, or DeepSeek refuses the second call", async () => {
    const fake = await serve("deepseek", ok(deepseekToolCall), ok(deepseekAnswer));
    const { result } = await run(fake);
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
    const reasoning = deepseekToolCall.choices[0]?.message.reasoning_content;
    expect(result.messages[2]).toMatchObject({ reasoning: [{ type: "reasoning", text: reasoning }] });
    expect(messagesOf(fake.requests[1])[2]).toMatchObject({ role: "assistant", reasoning_content: reasoning });
    expect(result.messages.at(-1)).toMatchObject({
      reasoning: [{ type: "reasoning", text: "30 °C is 86 °F. Answer." }],
    });
  });

  it("DeepSeek cut off while thinking: the reasoning so far is kept and the reply says it hit the length limit", async () => {
    const fake = await serve("deepseek", ok(deepseekCutWhileThinking));
    const reply = await openaiModel({ client: fake.client(), model: MODEL })(start, [], { signal });
    expect(reply).toStrictEqual({
      content: "",
      toolCalls: [],
      usage: { inputTokens: 87, outputTokens: 2 },
      reasoning: [{ type: "reasoning", text: "We need" }],
      finishReason: "length",
    });
  });

  it("vLLM: `reasoning` is read, and with reasoningField 'reasoning' goes back where vLLM reads it", async () => {
    const fake = await serve("vllm", ok(vllmToolCall), ok(textWithUsageDetails));
    const { result } = await run(fake, { reasoningField: "reasoning" });
    expect(result.status).toBe("done");
    expect(messagesOf(fake.requests[1])[2]).toMatchObject({
      reasoning: vllmToolCall.choices[0]?.message.reasoning,
      tool_calls: [{ id: "chatcmpl-tool-5d1c8e0e7f7a4c0c9b8f1b7a2e3d4c5b" }],
    });
  });

  it("Ollama: `content: ''` beside a call, `reasoning` back under its name, and the run goes on", async () => {
    const fake = await serve("ollama", ok(ollamaToolCall), ok(textWithUsageDetails));
    const { result, runs } = await run(fake, { reasoningField: "reasoning" });
    expect(runs).toEqual([["get_weather", "Pune"]]);
    expect(result.messages[2]).toMatchObject({ content: "", toolCalls: [{ id: "call_k3v9q2ma" }] });
    expect(messagesOf(fake.requests[1])[2]).toMatchObject({ reasoning: "I need the weather in Pune first." });
  });

  it("llama.cpp's documented flat call shape ({name, arguments}, finish_reason 'tool') is a real call, not one named ''", async () => {
    const fake = await serve("llamacpp", ok(llamacppDocsFlatCall), ok(textWithUsageDetails));
    const { result, runs } = await run(fake);
    expect(runs).toEqual([["get_weather", "Pune"]]);
    expect(result.messages[2]).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_2_0", name: "get_weather", args: { city: "Pune" } }],
    });
    expect(messagesOf(fake.requests[1])[2]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_2_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Pune"}' } },
      ],
    });
  });

  it("LM Studio: a message with no content key and a numeric-looking call id", async () => {
    const fake = await serve("lmstudio", ok(lmstudioToolCall), ok(textWithUsageDetails));
    const { result } = await run(fake);
    expect(result.messages[2]).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "365174485", name: "get_weather", args: { city: "Pune" } }],
    });
    expect(result.status).toBe("done");
  });

  it("unsigned reasoning of another provider goes back; signed and redacted parts do not", async () => {
    const fake = await serve("deepseek", completion({ content: "Hi." }));
    const history: Message[] = [
      ...start,
      {
        role: "assistant",
        content: "Hello.",
        toolCalls: [],
        reasoning: [
          { type: "reasoning", text: "signed elsewhere", signature: "sig" },
          { type: "redacted-reasoning", data: "opaque" },
          { type: "reasoning", text: "plain" },
        ],
      },
      { role: "user", content: "And Delhi?" },
    ];
    await openaiModel({ client: fake.client(), model: MODEL })(history, [], { signal });
    expect(messagesOf(fake.requests[0])[1]).toEqual({
      role: "assistant",
      content: "Hello.",
      reasoning_content: "plain",
    });
  });
});

describe("what a server refuses, the fake refuses in its words", () => {
  const question = { role: "user" as const, content: "How hot is Pune?" };

  it("DeepSeek: tool-call history without the reasoning_content it sent", async () => {
    const fake = await serve("deepseek", ok(deepseekToolCall), ok(deepseekAnswer));
    const client = fake.client({ maxRetries: 0 });
    await client.chat.completions.create({ model: MODEL, messages: [question] });
    const call = deepseekToolCall.choices[0]?.message.tool_calls[0];
    const withoutReasoning = client.chat.completions.create({
      model: MODEL,
      messages: [
        question,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: call?.id ?? "", type: "function", function: { name: "get_weather", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: call?.id ?? "", content: "30" },
      ],
    });
    await expect(withoutReasoning).rejects.toThrow(
      "The `reasoning_content` in the thinking mode must be passed back to the API.",
    );
    expect(fake.violations).toHaveLength(1);
    fake.violations.length = 0;
  });

  it("Ollama: tool-call history whose arguments are not a JSON object", async () => {
    const fake = await serve("ollama", ok(textWithUsageDetails));
    const broken = fake.client({ maxRetries: 0 }).chat.completions.create({
      model: MODEL,
      messages: [
        question,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "ERROR: not JSON" },
      ],
    });
    await expect(broken).rejects.toThrow(/^400 .*invalid tool call arguments/);
    fake.violations.length = 0;
  });

  it("OpenAI: tool calls left without results", async () => {
    const fake = await serve("openai", ok(textWithUsageDetails));
    const unanswered = fake.client({ maxRetries: 0 }).chat.completions.create({
      model: MODEL,
      messages: [
        question,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
        },
      ],
    });
    await expect(unanswered).rejects.toThrow(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
    );
    fake.violations.length = 0;
  });
});
