import { MemoryEventStore, runAgent } from "@agentloop/core";
import { makeWeatherRegistry, type RecordedRequest, WEATHER_TASK } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel } from "../src/index.js";
import { type FakeAnthropic, MODEL, message, startFakeAnthropic } from "./fake-anthropic.js";

// Prompt caching over HTTP with the real SDK: each request marks its stable prefix (the tools, the
// system prompt, the conversation as the last call sent it, and all of it for the next call), the
// usage comes back as billed (cache reads and writes apart), and `pricing` prices it.

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

const EPHEMERAL = { type: "ephemeral" };
const bodyOf = (request: RecordedRequest | undefined) => request?.body as Record<string, unknown>;
const use = (id: string, name: string, input: unknown) => ({ type: "tool_use" as const, id, name, input });

/** Where a request carries cache marks, as paths. */
function marksOf(body: Record<string, unknown>): string[] {
  const paths: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(item, `${path}[${index}]`);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (key === "cache_control") paths.push(path);
        else if (key !== "input_schema") walk(item, `${path}.${key}`);
      }
    }
  };
  walk({ tools: body.tools, system: body.system, messages: body.messages }, "");
  return paths;
}

// The three calls are billed 4,777 tokens in all, past the default budget of 4,000: the check before
// the third counts the second's 1,600 prompt tokens and would stop the run there.
const BUDGET = 10_000;

const script = () => [
  message({
    content: [use("c1", "get_weather", { city: "Pune" })],
    usage: { input: 20, output: 30, cacheWrite: 1500 },
  }),
  message({
    content: [use("c2", "c_to_f", { celsius: 30 })],
    usage: { input: 40, output: 25, cacheRead: 1500, cacheWrite: 60 },
  }),
  message({
    content: [{ type: "text", text: "It is 86 F in Pune." }],
    usage: { input: 30, output: 12, cacheRead: 1560 },
  }),
];

describe("prompt caching", () => {
  for (const streamed of [false, true]) {
    it(`${streamed ? "streamed" : "not streamed"}: marks the tools, the system prompt and the conversation, and reports cache reads and writes as billed`, async () => {
      const fake = await serve(...script());
      const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 512 });
      const store = new MemoryEventStore();
      const result = await runAgent(WEATHER_TASK, model, makeWeatherRegistry().registry, {
        system: "Use the tools.",
        tokenBudget: BUDGET,
        store,
        runId: "r",
        ...(streamed ? { onEvent: () => {} } : {}),
      });
      expect(result.status).toBe("done");
      const [first, second, third] = fake.requests.map(bodyOf);
      expect(first?.system).toEqual([{ type: "text", text: "Use the tools.", cache_control: EPHEMERAL }]);
      expect(((first?.tools ?? []) as { cache_control?: unknown }[]).map((tool) => tool.cache_control)).toEqual([
        undefined,
        EPHEMERAL,
      ]);
      expect(first?.messages).toEqual([
        { role: "user", content: [{ type: "text", text: WEATHER_TASK, cache_control: EPHEMERAL }] },
      ]);
      // The second call reads what the first wrote (the task) and writes up to its last tool result.
      expect(marksOf(second ?? {})).toEqual([
        ".tools[1]",
        ".system[0]",
        ".messages[0].content[0]",
        ".messages[2].content[0]",
      ]);
      expect(marksOf(third ?? {})).toEqual([
        ".tools[1]",
        ".system[0]",
        ".messages[2].content[0]",
        ".messages[4].content[0]",
      ]);
      const usages = (await store.read("r")).flatMap((event) =>
        event.type === "model.replied" ? [event.reply.usage] : [],
      );
      expect(usages).toEqual([
        { inputTokens: 1520, outputTokens: 30, cacheWriteTokens: 1500 },
        { inputTokens: 1600, outputTokens: 25, cachedInputTokens: 1500, cacheWriteTokens: 60 },
        { inputTokens: 1590, outputTokens: 12, cachedInputTokens: 1560 },
      ]);
      expect(result.tokens).toBe(1520 + 30 + 1600 + 25 + 1590 + 12);
    });
  }

  it("prices the calls by the adapter's model name, cache reads and writes at their rates", async () => {
    const fake = await serve(...script());
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 512 });
    expect(model.modelName).toBe(MODEL);
    const price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
    const result = await runAgent(WEATHER_TASK, model, makeWeatherRegistry().registry, {
      pricing: { [MODEL]: price },
      tokenBudget: BUDGET,
    });
    const expected =
      (20 * 3 + 1500 * 3.75 + 30 * 15 + (40 * 3 + 1500 * 0.3 + 60 * 3.75 + 25 * 15) + (30 * 3 + 1560 * 0.3 + 12 * 15)) /
      1e6;
    expect(result.cost).toBeCloseTo(expected, 12);
  });

  it("promptCache: false sends no cache mark at all, and the system prompt as a string", async () => {
    const fake = await serve(...script());
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 512, promptCache: false });
    await runAgent(WEATHER_TASK, model, makeWeatherRegistry().registry, {
      system: "Use the tools.",
      tokenBudget: BUDGET,
    });
    expect(fake.requests).toHaveLength(3);
    for (const request of fake.requests) expect(marksOf(bodyOf(request))).toEqual([]);
    expect(bodyOf(fake.requests[0]).system).toBe("Use the tools.");
  });

  it("refuses a promptCache that is not a boolean when the model is made", async () => {
    const fake = await serve();
    expect(() =>
      anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 512, promptCache: "yes" as unknown as boolean }),
    ).toThrow("promptCache must be a boolean, got string");
  });
});
