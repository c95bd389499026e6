import { type Message, ModelError, runAgent, type ToolSpec } from "@agentloop/core";
import { happyScript, makeWeatherRegistry, type RecordedRequest, WEATHER_TASK } from "@agentloop/provider-testkit";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIResponseError, openaiModel } from "../src/index.js";
import { completion, completionOf, type FakeOpenAI, failures, MODEL, startFakeOpenAI } from "./fake-openai.js";

let server: FakeOpenAI | undefined;

async function serve(...steps: Parameters<typeof startFakeOpenAI>[0]): Promise<FakeOpenAI> {
  server = await startFakeOpenAI(steps);
  return server;
}

afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Chat Completions wire format").toEqual([]);
});

function bodyOf(request: RecordedRequest | undefined): Record<string, unknown> {
  return request?.body as Record<string, unknown>;
}

const { registry: weather } = makeWeatherRegistry();
const specs: ToolSpec[] = weather.specs();
const start: Message[] = [
  { role: "system", content: "Use the tools." },
  { role: "user", content: WEATHER_TASK },
];
const signal = new AbortController().signal;

describe("openaiModel over HTTP", () => {
  it("runs the happy path: the whole list, the tools and the results reach the server in the documented shape", async () => {
    const fake = await serve(...happyScript().map((reply) => completionOf(reply)));
    const { registry, runs } = makeWeatherRegistry();
    const model = openaiModel({ client: fake.client(), model: MODEL, maxTokens: 256, temperature: 0 });

    const result = await runAgent(WEATHER_TASK, model, registry);

    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 3 });
    expect(runs).toEqual([
      ["get_weather", "Pune"],
      ["c_to_f", 30],
    ]);
    expect(fake.requests.map((r) => (bodyOf(r).messages as unknown[]).length)).toEqual([2, 4, 6]);
    const first = bodyOf(fake.requests[0]);
    expect(first).toMatchObject({ model: MODEL, max_completion_tokens: 256, temperature: 0 });
    expect(first.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: specs[0]?.description,
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
      {
        type: "function",
        function: {
          name: "c_to_f",
          description: specs[1]?.description,
          parameters: { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
        },
      },
    ]);
    expect((bodyOf(fake.requests[1]).messages as unknown[]).slice(2)).toEqual([
      {
        role: "assistant",
        content: "I will look up Pune first.",
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Pune"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: '{"city":"Pune","celsius":30}' },
    ]);
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("maps text with two tool calls in one reply, and the reported usage", async () => {
    const fake = await serve(
      completion({
        content: "Both, then.",
        toolCalls: [
          { id: "call_a", name: "get_weather", arguments: '{"city":"Pune"}' },
          { id: "call_b", name: "get_weather", arguments: '{"city":"Delhi"}' },
        ],
        usage: { prompt: 97, completion: 31 },
      }),
    );
    const reply = await openaiModel({ client: fake.client(), model: MODEL })(start, specs, { signal });
    expect(reply).toEqual({
      content: "Both, then.",
      toolCalls: [
        { id: "call_a", name: "get_weather", args: { city: "Pune" } },
        { id: "call_b", name: "get_weather", args: { city: "Delhi" } },
      ],
      usage: { inputTokens: 97, outputTokens: 31 },
    });
  });

  it("turns malformed JSON arguments into an ERROR observation, keeps the raw text in the trace, and sends valid JSON back", async () => {
    const raw = '{"city": "Pune"';
    const fake = await serve(
      completion({ toolCalls: [{ id: "call_1", name: "get_weather", arguments: raw }] }),
      completion({ content: "Sorry." }),
    );
    const { registry, runs } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, openaiModel({ client: fake.client(), model: MODEL }), registry);

    expect(result.status).toBe("done");
    expect(result.messages[2]).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_1", name: "get_weather", args: {}, rawArgs: raw }],
    });
    const observation = result.messages[3]?.content ?? "";
    expect(observation).toMatch(/^ERROR: the arguments of 'get_weather' are not a valid JSON object \(.+\)/);
    expect(observation).toContain('get_weather expects {"city":{"type":"string"}}');
    expect(runs).toEqual([]);
    const replayed = (bodyOf(fake.requests[1]).messages as { tool_calls?: { function: { arguments: string } }[] }[])[2];
    expect(replayed?.tool_calls?.[0]?.function.arguments).toBe("{}");
  });

  it("gives empty and missing call ids stable ids, each with exactly one result", async () => {
    const fake = await serve(
      completion({
        toolCalls: [
          { id: "", name: "get_weather", arguments: '{"city":"Pune"}' },
          { name: "get_weather", arguments: '{"city":"Delhi"}' },
        ],
      }),
      completion({ content: "Delhi is hotter." }),
    );
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, openaiModel({ client: fake.client(), model: MODEL }), registry);

    const ids = result.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []));
    expect(ids).toEqual(["call_2_0", "call_2_1"]);
    expect(result.status).toBe("done");
  });

  it("finish_reason length: a cut-off tool call is refused as bad JSON, a cut-off text is still the answer", async () => {
    const fake = await serve(
      completion({ toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"ci' }], finishReason: "length" }),
      completion({ content: "It is 86", finishReason: "length" }),
    );
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, openaiModel({ client: fake.client(), model: MODEL }), registry);

    expect(result.messages[3]?.content).toMatch(/^ERROR: the arguments of 'get_weather' are not a valid JSON object/);
    expect(result).toMatchObject({ status: "done", answer: "It is 86" });
  });

  it("sends no tools, tool_choice or parallel_tool_calls when the registry is empty", async () => {
    const fake = await serve(completion({ content: "Hi." }));
    const model = openaiModel({ client: fake.client(), model: MODEL, tool_choice: "auto", parallel_tool_calls: false });
    await model(start, [], { signal });
    expect(Object.keys(bodyOf(fake.requests[0])).sort()).toEqual(["messages", "model"]);
  });

  it("exposes its reply limit as maxReplyTokens, from maxTokens or the legacy max_tokens", async () => {
    const client = new OpenAI({ apiKey: "sk-test", baseURL: "http://127.0.0.1:9/v1" });
    expect(openaiModel({ client, model: MODEL, maxTokens: 512 }).maxReplyTokens).toBe(512);
    expect(openaiModel({ client, model: MODEL, max_tokens: 300 }).maxReplyTokens).toBe(300);
    expect(openaiModel({ client, model: MODEL }).maxReplyTokens).toBeUndefined();
    expect(() => openaiModel({ client, model: MODEL, maxTokens: 0 })).toThrow(RangeError);
    expect(() => openaiModel({ client, model: MODEL, maxTokens: 5, max_tokens: 5 })).toThrow(RangeError);
  });
});

describe("openaiModel failures the model cannot fix", () => {
  async function runWith(fake: FakeOpenAI, options: { maxRetries?: number } = {}): Promise<unknown> {
    const { registry } = makeWeatherRegistry();
    const model = openaiModel({ client: fake.client({ apiKey: "sk-bad" }), model: MODEL, ...options });
    return runAgent(WEATHER_TASK, model, registry).then(
      () => expect.fail("the run should have rejected"),
      (error: unknown) => error,
    );
  }

  it("401 bad key: the run rejects at once with the SDK's AuthenticationError as cause, and the trace is kept", async () => {
    const fake = await serve(failures.badKey);
    const error = await runWith(fake);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).cause).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as ModelError).messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(fake.requests).toHaveLength(1);
  });

  it("404 unknown model: rejects without retrying", async () => {
    const fake = await serve(failures.modelNotFound);
    expect(((await runWith(fake)) as Error).cause).toBeInstanceOf(OpenAI.NotFoundError);
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    ["429", failures.rateLimited],
    ["500", failures.serverError],
  ])("%s then 200: the SDK retries the same request and the run goes on", async (_status, failure) => {
    const fake = await serve(failure, completion({ content: "It is 86 F in Pune." }));
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, openaiModel({ client: fake.client(), model: MODEL }), registry);
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]?.body).toEqual(fake.requests[0]?.body);
    expect(fake.requests[1]?.headers["x-stainless-retry-count"]).toBe("1");
  });

  it("500 forever: rejects after maxRetries retries, the adapter's setting winning over the client's", async () => {
    const fake = await serve(failures.serverError, failures.serverError, failures.serverError, failures.serverError);
    const error = await runWith(fake, { maxRetries: 1 });
    expect((error as Error).cause).toBeInstanceOf(OpenAI.InternalServerError);
    expect(fake.requests).toHaveLength(2);
  });

  it("a body with no choices rejects with OpenAIResponseError", async () => {
    const broken = completion({ content: "x" });
    const fake = await serve({ ...broken, body: { ...(broken.body as object), choices: [] } });
    expect(((await runWith(fake)) as Error).cause).toBeInstanceOf(OpenAIResponseError);
  });

  it("abort: the signal reaches the HTTP request, which the client drops", async () => {
    let arrived: (request: RecordedRequest) => void = () => {};
    const arrival = new Promise<RecordedRequest>((resolve) => {
      arrived = resolve;
    });
    const fake = await serve((request) => {
      arrived(request);
      return new Promise(() => {});
    });
    const controller = new AbortController();
    const reply = openaiModel({ client: fake.client(), model: MODEL })(start, specs, { signal: controller.signal });
    const request = await arrival;
    controller.abort();
    await expect(reply).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    await request.abandoned;
  });
});
