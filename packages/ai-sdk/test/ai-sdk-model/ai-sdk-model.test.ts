import { continueAgent, MemoryEventStore, ModelError, runAgent } from "@agentloop/core";
import { makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import {
  APICallError,
  type LanguageModelV3CallOptions,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Content,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { AiSdkModelError, AiSdkStreamError, aiSdkModel } from "../../src/index.js";

const STOP = { unified: "stop", raw: "stop" } as const;
const CALLS = { unified: "tool-calls", raw: "tool_use" } as const;
const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function result(content: LanguageModelV4Content[], extra: Partial<LanguageModelV4GenerateResult> = {}) {
  return {
    content,
    finishReason: content.some((part) => part.type === "tool-call") ? CALLS : STOP,
    usage: USAGE,
    warnings: [],
    ...extra,
  };
}

const weatherCall = (id: string, city: string): LanguageModelV4Content => ({
  type: "tool-call",
  toolCallId: id,
  toolName: "get_weather",
  input: JSON.stringify({ city }),
});
const answer = (text: string) => result([{ type: "text", text }]);

describe("aiSdkModel: what it takes", () => {
  it("refuses a model of another specification version, and a model id string, in one line when made", () => {
    const v2 = { specificationVersion: "v2", provider: "openai.chat", modelId: "gpt-4o", doGenerate: () => {} };
    expect(() => aiSdkModel(v2 as never)).toThrow(AiSdkModelError);
    expect(() => aiSdkModel(v2 as never)).toThrow(
      /^aiSdkModel speaks the AI SDK's language model specifications v3 and v4; openai\.chat\/gpt-4o is of specification v2 \(.*\)$/,
    );
    expect(() => aiSdkModel({ specificationVersion: "v5", provider: "x", modelId: "y" } as never)).toThrow(
      /specification v5/,
    );
    expect(() => aiSdkModel("google/gemini-2.5-flash" as never)).toThrow(
      /not the model id 'google\/gemini-2\.5-flash'/,
    );
    expect(() => aiSdkModel(new MockLanguageModelV4(), { maxOutputTokens: 0 })).toThrow(
      /maxOutputTokens must be a positive/,
    );
  });

  it("names the model provider/modelId unless settings.name says otherwise, and tells its reply limit", () => {
    const mock = new MockLanguageModelV4({ provider: "google.generative-ai", modelId: "gemini-2.5-flash" });
    expect(aiSdkModel(mock).modelName).toBe("google.generative-ai/gemini-2.5-flash");
    expect(aiSdkModel(mock).maxReplyTokens).toBeUndefined();
    const named = aiSdkModel(mock, { name: "gemini-flash", maxOutputTokens: 512 });
    expect([named.modelName, named.maxReplyTokens]).toEqual(["gemini-flash", 512]);
  });

  it("sends the messages, content parts, tools as JSON Schema, maxOutputTokens, providerOptions, output and the signal", async () => {
    const mock = new MockLanguageModelV4({ doGenerate: [result([weatherCall("c1", "Pune")]), answer('{"f":86}')] });
    const model = aiSdkModel(mock, {
      maxOutputTokens: 300,
      providerOptions: { google: { thinkingConfig: { thinkingBudget: 128 } } },
    });
    const task = [
      { type: "text", text: "How hot is it here?" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      {
        type: "file",
        mediaType: "application/pdf",
        data: new URL("https://example.com/forecast.pdf"),
        filename: "forecast.pdf",
      },
    ] as const;
    const schema = { type: "object", properties: { f: { type: "number" } }, required: ["f"] } as const;
    const run = await runAgent(task, model, makeWeatherRegistry().registry, { system: "Be brief.", output: schema });
    expect(run.status).toBe("done");
    const [first, second] = mock.doGenerateCalls as LanguageModelV4CallOptions[];
    expect(first?.prompt).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "How hot is it here?" },
          { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgo=" } },
          {
            type: "file",
            mediaType: "application/pdf",
            data: { type: "url", url: new URL("https://example.com/forecast.pdf") },
            filename: "forecast.pdf",
          },
        ],
      },
    ]);
    expect(first?.tools?.map((tool) => tool.type === "function" && [tool.name, tool.inputSchema])).toEqual([
      ["get_weather", { type: "object", properties: { city: { type: "string" } }, required: ["city"] }],
      ["c_to_f", { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] }],
    ]);
    expect(first?.maxOutputTokens).toBe(300);
    expect(first?.providerOptions).toEqual({ google: { thinkingConfig: { thinkingBudget: 128 } } });
    expect(first?.responseFormat).toMatchObject({ type: "json", schema: { type: "object" } });
    expect(first?.abortSignal).toBeInstanceOf(AbortSignal);
    expect(second?.prompt.slice(2)).toEqual([
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Pune" } }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "get_weather",
            output: { type: "text", value: '{"city":"Pune","celsius":30}' },
          },
        ],
      },
    ]);
  });

  it("a v3 model gets files as base64 text or a URL, the spec's own form", async () => {
    const mock = new MockLanguageModelV3({ doGenerate: answer("Sunny.") as never });
    const task = [
      { type: "text", text: "And here?" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      { type: "image", mediaType: "image/jpeg", data: new URL("https://example.com/sky.jpg") },
    ] as const;
    const run = await runAgent(task, aiSdkModel(mock), makeWeatherRegistry().registry);
    expect(run.answer).toBe("Sunny.");
    const [call] = mock.doGenerateCalls as LanguageModelV3CallOptions[];
    expect(call?.prompt.find((message) => message.role === "user")).toEqual({
      role: "user",
      content: [
        { type: "text", text: "And here?" },
        { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" },
        { type: "file", mediaType: "image/jpeg", data: new URL("https://example.com/sky.jpg") },
      ],
    });
  });

  it("sends prepareStep's tool choice and only its active tools", async () => {
    const mock = new MockLanguageModelV4({ doGenerate: [result([weatherCall("c1", "Pune")]), answer("30 C.")] });
    await runAgent(WEATHER_TASK, aiSdkModel(mock), makeWeatherRegistry().registry, {
      prepareStep: ({ step }) =>
        step === 1 ? { activeTools: ["get_weather"], toolChoice: { name: "get_weather" } } : { toolChoice: "none" },
    });
    const [first, second] = mock.doGenerateCalls;
    expect(first?.tools?.map((tool) => tool.name)).toEqual(["get_weather"]);
    expect(first?.toolChoice).toEqual({ type: "tool", toolName: "get_weather" });
    expect(second?.toolChoice).toEqual({ type: "none" });

    // With no tool offered, no tool choice is sent: providers refuse one without tools.
    const bare = new MockLanguageModelV4({ doGenerate: answer("Hi.") });
    await runAgent("Hi", aiSdkModel(bare), makeWeatherRegistry().registry, {
      prepareStep: () => ({ activeTools: [], toolChoice: "none" }),
    });
    expect(bare.doGenerateCalls[0]?.tools).toBeUndefined();
    expect(bare.doGenerateCalls[0]?.toolChoice).toBeUndefined();
  });

  it("aborting the run aborts the provider's call", async () => {
    const controller = new AbortController();
    const mock = new MockLanguageModelV4({
      doGenerate: (options) =>
        new Promise((_, reject) => {
          options.abortSignal?.addEventListener("abort", () => reject(options.abortSignal?.reason));
          controller.abort();
        }),
    });
    const run = await runAgent(WEATHER_TASK, aiSdkModel(mock), makeWeatherRegistry().registry, {
      signal: controller.signal,
    });
    expect(run.status).toBe("cancelled");
  });
});

describe("aiSdkModel: what it returns", () => {
  it("maps reasoning, text, calls with their metadata, finish reasons and nested usage (cache reads and writes, reasoning)", async () => {
    const reply = result(
      [
        { type: "reasoning", text: "Think.", providerMetadata: { anthropic: { signature: "sig-1" } } },
        { type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: "opaque" } } },
        { type: "text", text: "Looking it up." },
        {
          ...weatherCall("toolu_1", "Pune"),
          providerMetadata: { openai: { itemId: "fc_1" } },
        } as LanguageModelV4Content,
        { type: "tool-call", toolCallId: "toolu_2", toolName: "c_to_f", input: "not json" },
      ],
      {
        usage: {
          inputTokens: { total: 1200, noCache: 200, cacheRead: 900, cacheWrite: 100 },
          outputTokens: { total: 80, text: 30, reasoning: 50 },
        },
        finishReason: { unified: "length", raw: "max_tokens" },
        providerMetadata: { anthropic: { stopSequence: null, container: undefined } as never },
      },
    );
    const model = aiSdkModel(new MockLanguageModelV4({ doGenerate: reply }));
    const got = await model([{ role: "user", content: "Hi" }], [], { signal: new AbortController().signal });
    expect(got).toEqual({
      content: "Looking it up.",
      toolCalls: [
        {
          id: "toolu_1",
          name: "get_weather",
          args: { city: "Pune" },
          providerMetadata: { openai: { itemId: "fc_1" } },
        },
        { id: "toolu_2", name: "c_to_f", args: {}, rawArgs: "not json" },
      ],
      reasoning: [
        { type: "reasoning", text: "Think.", providerMetadata: { anthropic: { signature: "sig-1" } } },
        { type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: "opaque" } } },
      ],
      usage: {
        inputTokens: 1200,
        outputTokens: 80,
        cachedInputTokens: 900,
        cacheWriteTokens: 100,
        reasoningTokens: 50,
      },
      finishReason: "length",
      providerMetadata: { anthropic: { stopSequence: null } },
    });
    for (const [unified, expected] of [
      ["content-filter", "content-filter"],
      ["error", "other"],
      ["other", "other"],
      ["tool-calls", undefined],
    ] as const) {
      const one = aiSdkModel(
        new MockLanguageModelV4({ doGenerate: result([], { finishReason: { unified, raw: undefined } }) }),
      );
      expect(
        (await one([{ role: "user", content: "Hi" }], [], { signal: new AbortController().signal })).finishReason,
      ).toBe(expected);
    }
  });

  it("usage with only the parts given adds them up; none counted means no usage", async () => {
    const parts = result([{ type: "text", text: "a" }], {
      usage: {
        inputTokens: { total: undefined, noCache: 40, cacheRead: 60, cacheWrite: undefined },
        outputTokens: { total: undefined, text: 7, reasoning: 3 },
      },
    });
    const none = result([{ type: "text", text: "a" }], {
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      },
    });
    const signal = new AbortController().signal;
    const added = await aiSdkModel(new MockLanguageModelV4({ doGenerate: parts }))(
      [{ role: "user", content: "x" }],
      [],
      { signal },
    );
    expect(added.usage).toEqual({ inputTokens: 100, outputTokens: 10, cachedInputTokens: 60, reasoningTokens: 3 });
    const missing = await aiSdkModel(new MockLanguageModelV4({ doGenerate: none }))(
      [{ role: "user", content: "x" }],
      [],
      { signal },
    );
    expect(missing.usage).toBeUndefined();
  });

  it("prices a bridged model's cached and written tokens at their rates", async () => {
    const mock = new MockLanguageModelV4({
      provider: "anthropic.messages",
      modelId: "claude-sonnet-4-5",
      doGenerate: result([{ type: "text", text: "Hi." }], {
        usage: {
          inputTokens: { total: 1_000_000, noCache: 0, cacheRead: 500_000, cacheWrite: 500_000 },
          outputTokens: { total: 0, text: 0, reasoning: undefined },
        },
      }),
    });
    const run = await runAgent("Hi", aiSdkModel(mock), makeWeatherRegistry().registry, {
      pricing: { "anthropic.messages/claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 } },
    });
    expect(run.cost).toBeCloseTo(0.5 * 0.3 + 0.5 * 3.75, 10);
  });

  it("tools the provider ran are logged with the reply, never run, and sent back as they came", async () => {
    const executed: LanguageModelV4Content[] = [
      {
        type: "tool-call",
        toolCallId: "srv_1",
        toolName: "web_search",
        input: '{"query":"Pune weather"}',
        providerExecuted: true,
      },
      {
        type: "tool-result",
        toolCallId: "srv_1",
        toolName: "web_search",
        result: [{ url: "https://example.com", title: "Pune" }],
        providerMetadata: { anthropic: { cacheControl: null } },
      },
      { type: "text", text: "It is 30 C in Pune." },
    ];
    const mock = new MockLanguageModelV4({ doGenerate: [result(executed), answer("Still 30 C.")] });
    const store = new MemoryEventStore();
    const { registry, runs } = makeWeatherRegistry();
    const first = await runAgent(WEATHER_TASK, aiSdkModel(mock), registry, { store, runId: "s" });
    expect(first).toMatchObject({ status: "done", answer: "It is 30 C in Pune." });
    expect(runs).toEqual([]);
    const events = await store.read("s");
    expect(events.filter((event) => event.type === "tool.started")).toEqual([]);
    const replied = events.find((event) => event.type === "model.replied");
    expect(replied?.type === "model.replied" && replied.reply.providerMetadata).toEqual({
      agentloop: {
        providerExecuted: [
          { type: "tool-call", toolCallId: "srv_1", toolName: "web_search", input: { query: "Pune weather" } },
          {
            type: "tool-result",
            toolCallId: "srv_1",
            toolName: "web_search",
            result: [{ url: "https://example.com", title: "Pune" }],
            providerMetadata: { anthropic: { cacheControl: null } },
          },
        ],
        textAfter: 2,
      },
    });
    await continueAgent("s", "And now?", aiSdkModel(mock), registry, { store });
    const assistant = mock.doGenerateCalls[1]?.prompt.find((message) => message.role === "assistant");
    expect(assistant).toEqual({
      role: "assistant",
      content: [
        {
          type: "tool-call",
          toolCallId: "srv_1",
          toolName: "web_search",
          input: { query: "Pune weather" },
          providerExecuted: true,
        },
        {
          type: "tool-result",
          toolCallId: "srv_1",
          toolName: "web_search",
          output: { type: "json", value: [{ url: "https://example.com", title: "Pune" }] },
          providerOptions: { anthropic: { cacheControl: null } },
        },
        { type: "text", text: "It is 30 C in Pune." },
      ],
    });
  });
});

describe("aiSdkModel: streaming", () => {
  const parts: LanguageModelV4StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: "r1", modelId: "m" },
    { type: "reasoning-start", id: "r", providerMetadata: { google: { thoughtSignature: "start" } } },
    { type: "reasoning-delta", id: "r", delta: "Hm" },
    { type: "reasoning-delta", id: "r", delta: "m.", providerMetadata: { google: { thoughtSignature: "sig" } } },
    { type: "reasoning-end", id: "r", providerMetadata: { anthropic: { signature: "end" } } },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "Checking " },
    { type: "text-delta", id: "t", delta: "Pune." },
    { type: "text-end", id: "t" },
    { type: "tool-input-start", id: "c1", toolName: "get_weather" },
    { type: "tool-input-delta", id: "c1", delta: '{"city":' },
    { type: "tool-input-end", id: "c1" },
    { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: '{"city":"Pune"}' },
    { type: "tool-call", toolCallId: "c2", toolName: "get_weather", input: '{"city":"Delhi"}' },
    {
      type: "finish",
      usage: USAGE,
      finishReason: CALLS,
      providerMetadata: { google: { usageMetadata: { thoughtsTokenCount: 2 } } },
    },
  ];

  it("joins the parts into the reply doGenerate would give, with every delta told, the metadata of each piece merged", async () => {
    const mock = new MockLanguageModelV4({ doStream: { stream: convertArrayToReadableStream(parts) } });
    const deltas: unknown[] = [];
    const reply = await aiSdkModel(mock)([{ role: "user", content: "Hi" }], [], {
      signal: new AbortController().signal,
      onDelta: (delta) => deltas.push(delta),
    });
    expect(reply).toEqual({
      content: "Checking Pune.",
      toolCalls: [
        { id: "c1", name: "get_weather", args: { city: "Pune" } },
        { id: "c2", name: "get_weather", args: { city: "Delhi" } },
      ],
      reasoning: [
        {
          type: "reasoning",
          text: "Hmm.",
          providerMetadata: { google: { thoughtSignature: "sig" }, anthropic: { signature: "end" } },
        },
      ],
      usage: { inputTokens: 10, outputTokens: 5 },
      providerMetadata: { google: { usageMetadata: { thoughtsTokenCount: 2 } } },
    });
    expect(deltas).toEqual([
      { type: "reasoning-delta", text: "Hm" },
      { type: "reasoning-delta", text: "m." },
      { type: "text-delta", text: "Checking " },
      { type: "text-delta", text: "Pune." },
      { type: "tool-call-delta", index: 0, id: "c1", name: "get_weather", argsText: "" },
      { type: "tool-call-delta", index: 0, argsText: '{"city":' },
      { type: "tool-call-delta", index: 0, argsText: '"Pune"}' },
      { type: "tool-call-delta", index: 1, id: "c2", name: "get_weather", argsText: '{"city":"Delhi"}' },
    ]);
  });

  it("an error part, or a stream without its finish, rejects with AiSdkStreamError, retryable as its cause says", async () => {
    const overloaded = new APICallError({
      message: "Overloaded",
      url: "https://api.example.com",
      requestBodyValues: {},
      statusCode: 529,
      isRetryable: true,
    });
    const broken = (tail: LanguageModelV4StreamPart[]) =>
      aiSdkModel(
        new MockLanguageModelV4({
          doStream: async () => ({ stream: convertArrayToReadableStream([...parts.slice(0, 5), ...tail]) }),
        }),
      );
    const options = { signal: new AbortController().signal, onDelta: () => {} };
    await expect(
      broken([{ type: "error", error: overloaded }])([{ role: "user", content: "Hi" }], [], options),
    ).rejects.toThrow(AiSdkStreamError);
    await expect(broken([])([{ role: "user", content: "Hi" }], [], options)).rejects.toThrow(
      /ended before its finish part/,
    );
    const store = new MemoryEventStore();
    const run = await runAgent(
      WEATHER_TASK,
      broken([{ type: "error", error: { message: "bad request" } }]),
      makeWeatherRegistry().registry,
      {
        store,
        runId: "e",
        onEvent: () => {},
        retry: { attempts: 1, initialDelayMs: 1 },
      },
    ).catch((error: unknown) => error);
    expect(run).toBeInstanceOf(ModelError);
    const failed = (await store.read("e")).filter((event) => event.type === "model.failed");
    expect(failed.map((event) => event.type === "model.failed" && event.retryable)).toEqual([true, true]);
  });
});

describe("aiSdkModel: errors", () => {
  const failing = (statusCode: number, headers: Record<string, string> = {}) =>
    new APICallError({
      message: `HTTP ${statusCode}`,
      url: "https://api.example.com",
      requestBodyValues: {},
      statusCode,
      responseHeaders: headers,
      isRetryable: statusCode === 429 || statusCode >= 500,
    });

  it("a 429 with retry-after is retryable after the wait it asks for, then the reply; a 400 is not retried", async () => {
    let calls = 0;
    const mock = new MockLanguageModelV4({
      doGenerate: async () => {
        calls += 1;
        if (calls === 1) throw failing(429, { "retry-after": "0" });
        if (calls === 2) throw failing(503, { "retry-after-ms": "1" });
        return answer("86 F.");
      },
    });
    const store = new MemoryEventStore();
    const run = await runAgent(WEATHER_TASK, aiSdkModel(mock), makeWeatherRegistry().registry, {
      store,
      runId: "r",
      retry: { attempts: 3, initialDelayMs: 1 },
    });
    expect(run).toMatchObject({ status: "done", answer: "86 F." });
    const failed = (await store.read("r")).flatMap((event) => (event.type === "model.failed" ? [event] : []));
    expect(failed.map(({ retryable, retryAfterMs }) => ({ retryable, retryAfterMs }))).toEqual([
      { retryable: true, retryAfterMs: 0 },
      { retryable: true, retryAfterMs: 1 },
    ]);

    const refused = new MockLanguageModelV4({ doGenerate: async () => Promise.reject(failing(400)) });
    const error = await runAgent(WEATHER_TASK, aiSdkModel(refused), makeWeatherRegistry().registry, {
      retry: { attempts: 3, initialDelayMs: 1 },
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ModelError);
    expect(refused.doGenerateCalls).toHaveLength(1);
    expect((error as ModelError).retryable).toBe(false);
  });
});
