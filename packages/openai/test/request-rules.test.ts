import { type Message, ModelError, runAgent } from "@agentloop/core";
import { type FakeStep, makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIRequestError, type OpenAIRequestParams, openaiModel } from "../src/index.js";
import { completion, type FakeOpenAI, failures, MODEL, startFakeOpenAI } from "./fake-openai.js";

let server: FakeOpenAI | undefined;

async function serve(...steps: FakeStep[]): Promise<FakeOpenAI> {
  server = await startFakeOpenAI(steps);
  return server;
}

afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Chat Completions wire format").toEqual([]);
});

const signal = new AbortController().signal;
const bodyOf = (fake: FakeOpenAI, index: number) => fake.requests[index]?.body as Record<string, unknown>;

describe("options openaiModel cannot honour are refused when the model is made", () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ["n above 1", { n: 2 }, /n: a run takes one reply per model call/],
    ["stream", { stream: true }, /stream: the adapter streams by itself .*onDelta/],
    ["stream_options", { stream_options: { include_usage: true } }, /stream_options: the adapter sets/],
    ["audio output", { modalities: ["text", "audio"] }, /modalities: an audio reply has no text/],
    ["legacy functions", { functions: [] }, /functions: .*ToolRegistry/],
    ["the message list", { messages: [] }, /messages: `messages` is the run's message list/],
    ["max_completion_tokens", { max_completion_tokens: 9 }, /use the `maxTokens` option/],
  ])("%s", async (_name, params, problem) => {
    const fake = await serve();
    const make = () =>
      openaiModel({ client: fake.client(), model: MODEL, ...(params as unknown as OpenAIRequestParams) });
    expect(make).toThrow(OpenAIRequestError);
    expect(make).toThrow(problem);
    expect(fake.requests).toHaveLength(0);
  });

  it("names every problem at once, and takes n: 1 and stream: false", async () => {
    const fake = await serve();
    const both = { n: 3, stream_options: {} } as unknown as OpenAIRequestParams;
    expect(() => openaiModel({ client: fake.client(), model: MODEL, ...both })).toThrow(/stream_options: .*; n: /);
    const harmless = { n: 1, stream: false } as unknown as OpenAIRequestParams;
    expect(() => openaiModel({ client: fake.client(), model: MODEL, ...harmless })).not.toThrow();
  });
});

describe("what goes out with each call", () => {
  it("an empty task is refused before any request", async () => {
    const fake = await serve(completion({ content: "?" }));
    const { registry } = makeWeatherRegistry();
    const error = await runAgent("  ", openaiModel({ client: fake.client(), model: MODEL }), registry).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).cause).toBeInstanceOf(OpenAIRequestError);
    expect(String((error as ModelError).cause)).toMatch(/message 1 \(user\) is empty/);
    expect(fake.requests).toHaveLength(0);
  });

  it("tool_choice 'required' goes out only while the last message is the user's, so the run can answer", async () => {
    const fake = await serve(
      completion({ toolCalls: [{ id: "c1", name: "get_weather", arguments: '{"city":"Pune"}' }] }),
      completion({ content: "It is 30 C in Pune." }),
    );
    const { registry } = makeWeatherRegistry();
    const model = openaiModel({
      client: fake.client(),
      model: MODEL,
      tool_choice: "required",
      parallel_tool_calls: false,
    });
    const result = await runAgent(WEATHER_TASK, model, registry);
    expect(result).toMatchObject({ status: "done", answer: "It is 30 C in Pune." });
    expect(bodyOf(fake, 0)).toMatchObject({ tool_choice: "required", parallel_tool_calls: false });
    expect(bodyOf(fake, 1)).not.toHaveProperty("tool_choice");
    expect(bodyOf(fake, 1)).toMatchObject({ parallel_tool_calls: false });
  });

  it("a tool_choice that does not force a call goes out on every step", async () => {
    const fake = await serve(completion({ content: "ok" }));
    const history: Message[] = [
      { role: "user", content: "u" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Pune" } }] },
      { role: "tool", toolCallId: "c1", name: "get_weather", content: "{}" },
    ];
    const specs = makeWeatherRegistry().registry.specs();
    await openaiModel({ client: fake.client(), model: MODEL, tool_choice: "auto" })(history, specs, { signal });
    expect(bodyOf(fake, 0)).toMatchObject({ tool_choice: "auto" });
  });
});

describe("a 429 for an empty quota is not retried", () => {
  async function fail(fake: FakeOpenAI): Promise<unknown> {
    const model = openaiModel({ client: fake.client(), model: MODEL });
    return Promise.resolve(model([{ role: "user", content: "u" }], [], { signal })).then(
      () => expect.fail("the call should have rejected"),
      (error: unknown) => error,
    );
  }

  it("insufficient_quota rejects after one request with the SDK's RateLimitError", async () => {
    const fake = await serve(failures.insufficientQuota, completion({ content: "never sent" }));
    const error = await fail(fake);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).toBe("insufficient_quota");
    expect(fake.requests).toHaveLength(1);
  });

  it("an ordinary rate limit with retry-after is still retried, after the wait it asks for", async () => {
    const fake = await serve(failures.rateLimitedRetryAfter, completion({ content: "later" }));
    const reply = await openaiModel({ client: fake.client(), model: MODEL })([{ role: "user", content: "u" }], [], {
      signal,
    });
    expect(reply.content).toBe("later");
    expect(fake.requests).toHaveLength(2);
  });

  it("a custom fetch of the client still makes every request", async () => {
    const fake = await serve(completion({ content: "via custom fetch" }));
    const seen: string[] = [];
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: `${fake.url}/v1`,
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    const reply = await openaiModel({ client, model: MODEL })([{ role: "user", content: "u" }], [], { signal });
    expect(reply.content).toBe("via custom fetch");
    expect(seen).toEqual([`${fake.url}/v1/chat/completions`]);
  });
});
