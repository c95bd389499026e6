import type { Message, ModelDelta } from "@agentloop/core";
import {
  type FakeResponse,
  type FakeStep,
  makeWeatherRegistry,
  mismatches,
  type RecordedRequest,
} from "@agentloop/provider-testkit";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIStreamError, openaiModel } from "../src/index.js";
import { completionChunks } from "./completion-chunks.js";
import { type FakeOpenAI, failures, MODEL, startFakeOpenAI } from "./fake-openai.js";
import { parallelCalls, refusal } from "./fixtures/openai.js";
import {
  deepseekThinkingCall,
  openaiCutStream,
  openaiErrorMidStream,
  openaiParallelCalls,
} from "./fixtures/streams.js";
import type { Dialect } from "./openai-wire-format.js";

let server: FakeOpenAI | undefined;

async function serve(dialect: Dialect, ...steps: FakeStep[]): Promise<FakeOpenAI> {
  server = await startFakeOpenAI(steps, { dialect });
  return server;
}

afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the wire format").toEqual([]);
});

const specs = makeWeatherRegistry().registry.specs();
const start: Message[] = [{ role: "user", content: "Which is hotter, Pune or Delhi?" }];

async function streamed(fake: FakeOpenAI, signal = new AbortController().signal) {
  const deltas: ModelDelta[] = [];
  const reply = await openaiModel({ client: fake.client(), model: MODEL })(start, specs, {
    signal,
    onDelta: (delta) => deltas.push(delta),
  });
  return { reply, deltas };
}

describe("openaiModel streaming over recorded streams", () => {
  it("parallel calls arrive as fragments and add up to the same reply, the usage from the last chunk", async () => {
    const fake = await serve("openai", openaiParallelCalls);
    const { reply, deltas } = await streamed(fake);
    expect(reply).toStrictEqual({
      content: "",
      toolCalls: [
        { id: "call_JMW1whyEaYG438VE1OIflxA2", name: "get_weather", args: { city: "Pune" } },
        { id: "call_DNYTawLBoN8fj3KN6qU9N1Ou", name: "get_weather", args: { city: "Delhi" } },
      ],
      usage: { inputTokens: 149, outputTokens: 60 },
    });
    expect(deltas.slice(0, 2)).toEqual([
      { type: "tool-call-delta", index: 0, id: "call_JMW1whyEaYG438VE1OIflxA2", name: "get_weather", argsText: "" },
      { type: "tool-call-delta", index: 0, argsText: '{"ci' },
    ]);
    expect(mismatches(reply, deltas)).toEqual([]);
    expect(fake.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("DeepSeek's reasoning stream: reasoning deltas, usage on the finish chunk (its cache hits too), and the same reply as its JSON", async () => {
    const fake = await serve("deepseek", deepseekThinkingCall);
    const { reply, deltas } = await streamed(fake);
    expect(reply).toStrictEqual({
      content: "",
      toolCalls: [{ id: "call_00_IhCAliIHtM9gKpgfqbBV9873", name: "get_weather", args: { city: "Pune" } }],
      usage: { inputTokens: 374, outputTokens: 61, cachedInputTokens: 256 },
      reasoning: [
        { type: "reasoning", text: "The user asks about the weather in Pune. I should use the weather tool." },
      ],
    });
    expect(deltas.filter((delta) => delta.type === "reasoning-delta")).toHaveLength(16);
    expect(mismatches(reply, deltas)).toEqual([]);
  });

  it("a streamed refusal is the same reply as the JSON one, its text streamed as text", async () => {
    const json: FakeResponse = { status: 200, body: refusal };
    const plain = await openaiModel({ client: (await serve("openai", json)).client(), model: MODEL })(start, [], {
      signal: new AbortController().signal,
    });
    await server?.close();
    const fake = await serve("openai", completionChunks(refusal));
    const { reply, deltas } = await streamed(fake);
    expect(reply).toStrictEqual(plain);
    expect(reply.finishReason).toBe("refusal");
    expect(mismatches(reply, deltas)).toEqual([]);
  });

  it("the recorded parallel-call body streamed by the fake gives the reply its JSON gives", async () => {
    const json = await openaiModel({
      client: (await serve("openai", { status: 200, body: parallelCalls })).client(),
      model: MODEL,
    })(start, specs, { signal: new AbortController().signal });
    await server?.close();
    const fake = await serve("openai", { status: 200, body: parallelCalls });
    const { reply } = await streamed(fake);
    expect(reply).toStrictEqual(json);
  });
});

describe("a stream that breaks off rejects with a clear error", () => {
  it("a dropped connection rejects with OpenAIStreamError", async () => {
    const fake = await serve("openai", openaiCutStream);
    const error = await streamed(fake).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAIStreamError);
    expect(String(error)).toMatch(/the stream (broke off|ended)/);
  });

  it("an error event rejects with OpenAIStreamError, the SDK's APIError as cause", async () => {
    const fake = await serve("openai", openaiErrorMidStream);
    const error = await streamed(fake).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAIStreamError);
    expect((error as Error).cause).toBeInstanceOf(OpenAI.APIError);
    expect(String(error)).toMatch(/broke off after 3 chunks: .*The server had an error/);
  });

  it("a stream that ends before its finish reason rejects with OpenAIStreamError", async () => {
    const fake = await serve("openai", { events: openaiParallelCalls.events.slice(0, 4) });
    await expect(streamed(fake)).rejects.toThrow(/ended after 4 chunks without a finish_reason/);
  });

  it("a request refused before the stream starts rejects with the SDK's error, as without streaming", async () => {
    const fake = await serve("openai", failures.badKey);
    await expect(streamed(fake)).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it("the signal aborts a stream in flight with the SDK's APIUserAbortError", async () => {
    let arrived: (request: RecordedRequest) => void = () => {};
    const arrival = new Promise<RecordedRequest>((resolve) => {
      arrived = resolve;
    });
    const fake = await serve("openai", (request) => {
      arrived(request);
      return { events: openaiParallelCalls.events.slice(0, 3), end: "hold" };
    });
    const controller = new AbortController();
    const deltas: ModelDelta[] = [];
    const reply = openaiModel({ client: fake.client(), model: MODEL })(start, specs, {
      signal: controller.signal,
      onDelta: (delta) => {
        deltas.push(delta);
        if (deltas.length === 2) controller.abort();
      },
    });
    const request = await arrival;
    await expect(reply).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    await request.abandoned;
  });
});
