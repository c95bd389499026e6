import { type Message, ModelError, runAgent } from "@agentloop/core";
import { type FakeStep, makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { AnthropicRequestError, type AnthropicRequestParams, anthropicModel } from "../src/index.js";
import { type FakeAnthropic, MODEL, message, startFakeAnthropic } from "./fake-anthropic.js";

let server: FakeAnthropic | undefined;

async function serve(...steps: FakeStep[]): Promise<FakeAnthropic> {
  server = await startFakeAnthropic(steps);
  return server;
}

afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests the API would refuse").toEqual([]);
});

const signal = new AbortController().signal;
const bodyOf = (fake: FakeAnthropic, index: number) => fake.requests[index]?.body as Record<string, unknown>;

describe("options anthropicModel cannot honour are refused when the model is made", () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ["stream", { stream: true }, /stream: the adapter streams by itself .*onDelta/],
    ["a system prompt", { system: "Be brief." }, /system: give the system prompt to runAgent/],
    ["max_tokens", { max_tokens: 10 }, /use the `maxTokens` option/],
    [
      "a thinking budget that leaves no room to reply",
      { thinking: { type: "enabled", budget_tokens: 2048 } },
      /thinking.budget_tokens \(2048\) must be less than maxTokens \(2048\)/,
    ],
    [
      "a forced tool_choice with thinking on",
      { thinking: { type: "adaptive" }, tool_choice: { type: "any" } },
      /with thinking on, the API takes only tool_choice `auto` or `none`/,
    ],
  ])("%s", async (_name, params, problem) => {
    const fake = await serve();
    const make = () =>
      anthropicModel({
        client: fake.client(),
        model: MODEL,
        maxTokens: 2048,
        ...(params as unknown as AnthropicRequestParams),
      });
    expect(make).toThrow(AnthropicRequestError);
    expect(make).toThrow(problem);
    expect(fake.requests).toHaveLength(0);
  });

  it("takes thinking, and sends it", async () => {
    const fake = await serve(message({ content: [{ type: "text", text: "Hi." }] }));
    const thinking = { type: "enabled" as const, budget_tokens: 1024 };
    await anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 4096, thinking })(
      [{ role: "user", content: "u" }],
      [],
      { signal },
    );
    expect(bodyOf(fake, 0)).toMatchObject({ thinking, max_tokens: 4096 });
  });
});

describe("what goes out with each call", () => {
  it("an empty task is refused before any request (the API would answer 400)", async () => {
    const fake = await serve(message({ content: [{ type: "text", text: "?" }] }));
    const { registry } = makeWeatherRegistry();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 });
    const error = await runAgent("", model, registry).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).cause).toBeInstanceOf(AnthropicRequestError);
    expect(String((error as ModelError).cause)).toMatch(
      /message 1 \(user\) is empty: the Messages API refuses empty content/,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it("tool_choice any goes out only while the last message is the user's, so the run can answer", async () => {
    const fake = await serve(
      message({ content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Pune" } }] }),
      message({ content: [{ type: "text", text: "It is 30 C in Pune." }] }),
    );
    const { registry } = makeWeatherRegistry();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256, tool_choice: { type: "any" } });
    const result = await runAgent(WEATHER_TASK, model, registry);
    expect(result).toMatchObject({ status: "done", answer: "It is 30 C in Pune." });
    expect(bodyOf(fake, 0)).toMatchObject({ tool_choice: { type: "any" } });
    expect(bodyOf(fake, 1)).not.toHaveProperty("tool_choice");
  });

  it("a tool_choice that does not force a call goes out on every step", async () => {
    const fake = await serve(message({ content: [{ type: "text", text: "ok" }] }));
    const history: Message[] = [
      { role: "user", content: "u" },
      { role: "assistant", content: "", toolCalls: [{ id: "toolu_1", name: "get_weather", args: { city: "Pune" } }] },
      { role: "tool", toolCallId: "toolu_1", name: "get_weather", content: "{}" },
    ];
    const choice = { type: "auto" as const, disable_parallel_tool_use: true };
    const specs = makeWeatherRegistry().registry.specs();
    await anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256, tool_choice: choice })(history, specs, {
      signal,
    });
    expect(bodyOf(fake, 0)).toMatchObject({ tool_choice: choice });
  });

  it("a tool message flagged isError is sent with is_error, whatever its text", async () => {
    const fake = await serve(message({ content: [{ type: "text", text: "ok" }] }));
    const history: Message[] = [
      { role: "user", content: "u" },
      { role: "assistant", content: "", toolCalls: [{ id: "toolu_1", name: "get_weather", args: { city: "Pune" } }] },
      { role: "tool", toolCallId: "toolu_1", name: "get_weather", content: "denied", isError: true },
    ];
    await anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256, promptCache: false })(history, [], {
      signal,
    });
    const turns = bodyOf(fake, 0).messages as { content: unknown }[];
    expect(turns[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "denied", is_error: true },
    ]);
  });
});
