import { MemoryEventStore, runAgent } from "@agentloop/core";
import { parseEventLog } from "@agentloop/core/store";
import { type FakeResponse, type FakeStep, makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel } from "../src/index.js";
import { type FakeAnthropic, failures, MODEL, message, startFakeAnthropic } from "./fake-anthropic.js";

let server: FakeAnthropic | undefined;

async function serve(...steps: FakeStep[]): Promise<FakeAnthropic> {
  server = await startFakeAnthropic(steps);
  return server;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The 429 the Messages API sends, with the given wait headers in place of its own. */
function rateLimitedWith(headers: Record<string, string>): FakeResponse {
  const { status, body } = failures.rateLimited;
  return { status, body, headers };
}

describe("a provider's retry-after past the run's maxDelayMs", () => {
  it.each([
    ["retry-after-ms: 1e20", { "retry-after-ms": "1e20" }],
    ["retry-after: 1e17", { "retry-after": "1e17" }],
    ["retry-after: 1e400 (Infinity)", { "retry-after": "1e400" }],
    ["retry-after-ms: 9007199254740993", { "retry-after-ms": "9007199254740993" }],
  ])("%s: waits at most maxDelayMs, logs what was said and waited, and the log reads back", async (_, headers) => {
    const fake = await serve(
      rateLimitedWith(headers),
      message({ content: [{ type: "text", text: "It is 86 F in Pune." }] }),
    );
    const store = new MemoryEventStore();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 });
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, model, registry, {
      store,
      runId: "huge",
      retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 5 },
    });
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
    const events = await store.read("huge");
    expect(() => parseEventLog("huge", JSON.parse(JSON.stringify(events)))).not.toThrow();
    const failed = events.find((event) => event.type === "model.failed");
    expect(failed).toMatchObject({ retryable: true, retryAfterMs: Number.MAX_SAFE_INTEGER });
    const waited = events.find((event) => event.type === "retry.waited");
    expect(waited).toMatchObject({ delayMs: 5 });
  });

  it("a retry-after within maxDelayMs is waited as it is and logged as it is", async () => {
    const fake = await serve(
      rateLimitedWith({ "retry-after-ms": "3" }),
      message({ content: [{ type: "text", text: "ok" }] }),
    );
    const store = new MemoryEventStore();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 });
    const { registry } = makeWeatherRegistry();
    await runAgent(WEATHER_TASK, model, registry, {
      store,
      runId: "small",
      retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 50 },
    });
    const events = await store.read("small");
    expect(events.find((event) => event.type === "model.failed")).toMatchObject({ retryAfterMs: 3 });
    expect(events.find((event) => event.type === "retry.waited")).toMatchObject({ delayMs: 3 });
  });
});
