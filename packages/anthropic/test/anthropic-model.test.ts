import { type Message, ModelError, runAgent, type ToolSpec } from "@agentloop/core";
import { happyScript, makeWeatherRegistry, type RecordedRequest, WEATHER_TASK } from "@agentloop/provider-testkit";
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { AnthropicResponseError, anthropicModel } from "../src/index.js";
import { type FakeAnthropic, failures, MODEL, message, messageOf, startFakeAnthropic } from "./fake-anthropic.js";

let server: FakeAnthropic | undefined;

async function serve(...steps: Parameters<typeof startFakeAnthropic>[0]): Promise<FakeAnthropic> {
  server = await startFakeAnthropic(steps);
  return server;
}

afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Messages API wire format").toEqual([]);
});

function bodyOf(request: RecordedRequest | undefined): Record<string, unknown> {
  return request?.body as Record<string, unknown>;
}

const specs: ToolSpec[] = makeWeatherRegistry().registry.specs();
const start: Message[] = [
  { role: "system", content: "Use the tools." },
  { role: "user", content: WEATHER_TASK },
];
const signal = new AbortController().signal;
const text = (value: string) => ({ type: "text" as const, text: value });
const use = (id: string | undefined, name: string, input: unknown) => ({
  type: "tool_use" as const,
  ...(id === undefined ? {} : { id }),
  name,
  input,
});

describe("anthropicModel over HTTP", () => {
  it("runs the happy path: system prompt apart, tool_use and tool_result blocks in the documented shape", async () => {
    const fake = await serve(...happyScript().map(messageOf));
    const { registry, runs } = makeWeatherRegistry();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 1024, promptCache: false });

    const result = await runAgent(WEATHER_TASK, model, registry, { system: "Use the tools." });

    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 3 });
    expect(runs).toEqual([
      ["get_weather", "Pune"],
      ["c_to_f", 30],
    ]);
    const first = bodyOf(fake.requests[0]);
    expect(first).toMatchObject({ model: MODEL, max_tokens: 1024, system: "Use the tools." });
    expect(first.messages).toEqual([{ role: "user", content: WEATHER_TASK }]);
    expect(first.tools).toEqual([
      { name: "get_weather", description: specs[0]?.description, input_schema: specs[0]?.parameters },
      { name: "c_to_f", description: specs[1]?.description, input_schema: specs[1]?.parameters },
    ]);
    expect((bodyOf(fake.requests[1]).messages as unknown[]).slice(1)).toEqual([
      {
        role: "assistant",
        content: [text("I will look up Pune first."), use("c1", "get_weather", { city: "Pune" })],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: '{"city":"Pune","celsius":30}' }] },
    ]);
    expect(fake.requests.map((r) => (bodyOf(r).messages as unknown[]).length)).toEqual([1, 3, 5]);
  });

  it("maps text with two tool uses in one reply, and the usage", async () => {
    const fake = await serve(
      message({
        content: [
          text("Both, then."),
          use("toolu_a", "get_weather", { city: "Pune" }),
          use("toolu_b", "get_weather", { city: "Delhi" }),
        ],
        usage: { input: 410, output: 62 },
      }),
    );
    const reply = await anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 })(start, specs, {
      signal,
    });
    expect(reply).toEqual({
      content: "Both, then.",
      toolCalls: [
        { id: "toolu_a", name: "get_weather", args: { city: "Pune" } },
        { id: "toolu_b", name: "get_weather", args: { city: "Delhi" } },
      ],
      usage: { inputTokens: 410, outputTokens: 62 },
    });
  });

  it("sends all results of one reply in one user turn, in call order, errors marked is_error", async () => {
    const fake = await serve(
      message({
        content: [use("toolu_a", "get_weather", { city: "Atlantis" }), use("toolu_b", "get_weather", { city: "Pune" })],
      }),
      message({ content: [text("Pune is at 30 C.")] }),
    );
    const { registry } = makeWeatherRegistry();
    await runAgent(
      WEATHER_TASK,
      anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256, promptCache: false }),
      registry,
    );
    expect((bodyOf(fake.requests[1]).messages as unknown[])[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_a",
          content: "ERROR: get_weather failed: Error: unknown city 'Atlantis'",
          is_error: true,
        },
        { type: "tool_result", tool_use_id: "toolu_b", content: '{"city":"Pune","celsius":30}' },
      ],
    });
  });

  it("an input that is not an object becomes an ERROR observation with the raw JSON in the trace", async () => {
    const fake = await serve(
      message({ content: [use("toolu_1", "get_weather", "Pune")] }),
      message({ content: [text("Sorry.")] }),
    );
    const { registry, runs } = makeWeatherRegistry();
    const result = await runAgent(
      WEATHER_TASK,
      anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 }),
      registry,
    );
    expect(result.messages[2]).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "toolu_1", name: "get_weather", args: {}, rawArgs: '"Pune"' }],
    });
    expect(result.messages[3]?.content).toMatch(/^ERROR: the arguments of 'get_weather' are not a valid JSON object/);
    expect(runs).toEqual([]);
  });

  it("gives missing and repeated tool_use ids stable ids, each with exactly one result", async () => {
    const fake = await serve(
      message({
        content: [use(undefined, "get_weather", { city: "Pune" }), use("toolu_x", "get_weather", { city: "Delhi" })],
      }),
      message({ content: [use("toolu_x", "c_to_f", { celsius: 35 })] }),
      message({ content: [text("95 F.")] }),
    );
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(
      WEATHER_TASK,
      anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 }),
      registry,
    );
    const ids = result.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []));
    expect(ids).toEqual(["call_2_0", "toolu_x", "call_5_0"]);
    expect(result.status).toBe("done");
  });

  it("stop_reason max_tokens: a cut-off text with no tool use is still the answer", async () => {
    const fake = await serve(message({ content: [text("It is 8")], stopReason: "max_tokens" }));
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(
      WEATHER_TASK,
      anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 3 }),
      registry,
    );
    expect(result).toMatchObject({ status: "done", answer: "It is 8" });
  });

  it("sends no tools or tool_choice when the registry is empty, and exposes maxReplyTokens", async () => {
    const fake = await serve(message({ content: [text("Hi.")] }));
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 77, tool_choice: { type: "auto" } });
    await model(start, [], { signal });
    expect(Object.keys(bodyOf(fake.requests[0])).sort()).toEqual(["max_tokens", "messages", "model", "system"]);
    expect(model.maxReplyTokens).toBe(77);
    expect(() => anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 1.5 })).toThrow(RangeError);
  });
});

describe("anthropicModel and the token budget", () => {
  it("its maxTokens is the run's default reply reserve: a call that could overspend is never sent", async () => {
    const fake = await serve(message({ content: [text("Hi.")] }));
    const { registry } = makeWeatherRegistry();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 4000 });
    const reserved = await runAgent(WEATHER_TASK, model, registry, { tokenBudget: 4000 });
    expect(reserved).toMatchObject({ status: "token_budget", steps: 0 });
    expect(fake.requests).toHaveLength(0);
    const unreserved = await runAgent(WEATHER_TASK, model, registry, { tokenBudget: 4000, replyReserve: 0 });
    expect(unreserved).toMatchObject({ status: "done", steps: 1 });
    expect(fake.requests).toHaveLength(1);
  });
});

describe("anthropicModel failures the model cannot fix", () => {
  async function runWith(fake: FakeAnthropic, options: { maxRetries?: number } = {}): Promise<unknown> {
    const { registry } = makeWeatherRegistry();
    const model = anthropicModel({
      client: fake.client({ apiKey: "sk-ant-bad" }),
      model: MODEL,
      maxTokens: 256,
      ...options,
    });
    return runAgent(WEATHER_TASK, model, registry).then(
      () => expect.fail("the run should have rejected"),
      (error: unknown) => error,
    );
  }

  it("401 bad key: the run rejects at once with the SDK's AuthenticationError as cause, and the trace is kept", async () => {
    const fake = await serve(failures.badKey);
    const error = await runWith(fake);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).cause).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as ModelError).messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(fake.requests).toHaveLength(1);
  });

  it("404 unknown model: rejects without retrying", async () => {
    const fake = await serve(failures.modelNotFound);
    expect(((await runWith(fake)) as Error).cause).toBeInstanceOf(Anthropic.NotFoundError);
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    ["429", failures.rateLimited],
    ["500", failures.serverError],
    ["529 overloaded", failures.overloaded],
  ])("%s then 200: the SDK retries the same request and the run goes on", async (_status, failure) => {
    const fake = await serve(failure, message({ content: [text("It is 86 F in Pune.")] }));
    const { registry } = makeWeatherRegistry();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 });
    const result = await runAgent(WEATHER_TASK, model, registry);
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]?.body).toEqual(fake.requests[0]?.body);
    expect(fake.requests[1]?.headers["x-stainless-retry-count"]).toBe("1");
  });

  it("500 forever: rejects after maxRetries retries, the adapter's setting winning over the client's", async () => {
    const fake = await serve(failures.serverError, failures.serverError, failures.serverError, failures.serverError);
    const error = await runWith(fake, { maxRetries: 1 });
    expect((error as Error).cause).toBeInstanceOf(Anthropic.InternalServerError);
    expect(fake.requests).toHaveLength(2);
  });

  it("a body with no content array rejects with AnthropicResponseError", async () => {
    const broken = message({ content: [] });
    const fake = await serve({ ...broken, body: { ...(broken.body as object), content: null } });
    expect(((await runWith(fake)) as Error).cause).toBeInstanceOf(AnthropicResponseError);
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
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 });
    const reply = model(start, specs, { signal: controller.signal });
    const request = await arrival;
    controller.abort();
    await expect(reply).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    await request.abandoned;
  });
});
