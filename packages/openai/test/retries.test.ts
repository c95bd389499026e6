import { MemoryEventStore, ModelError, runAgent } from "@agentloop/core";
import type { StoredEvent } from "@agentloop/core/store";
import { type FakeStep, makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { openaiModel } from "../src/index.js";
import { completion, type FakeOpenAI, failures, MODEL, startFakeOpenAI } from "./fake-openai.js";

let server: FakeOpenAI | undefined;

async function serve(...steps: FakeStep[]): Promise<FakeOpenAI> {
  server = await startFakeOpenAI(steps);
  return server;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const failed = (events: readonly StoredEvent[]) =>
  events.flatMap((event) => (event.type === "model.failed" ? [event] : []));

describe("OpenAI errors under the run's retry and fallbackModels", () => {
  it("429 with retry-after, 500 and 503 are retryable: each is logged, one request per attempt, then the reply", async () => {
    const fake = await serve(
      failures.rateLimitedRetryAfter,
      failures.serverError,
      failures.serviceUnavailable,
      completion({ content: "It is 86 F in Pune." }),
    );
    const store = new MemoryEventStore();
    const model = openaiModel({ client: fake.client(), model: MODEL });
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, model, registry, {
      store,
      runId: "r",
      retry: { attempts: 3, initialDelayMs: 1 },
    });
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 1 });
    // The SDK's own retries are off in a run that retries itself: no retry storm.
    expect(fake.requests).toHaveLength(4);
    const failures3 = failed(await store.read("r"));
    expect(failures3.map((event) => [event.retryable, event.retryAfterMs])).toEqual([
      [true, 1000],
      [true, 1],
      [true, 1],
    ]);
    expect(failures3[0]?.error).toMatch(/429 Rate limit reached/);
  });

  it("insufficient_quota is not retryable: the run goes to the fallback model at once", async () => {
    const fake = await serve(failures.insufficientQuota, completion({ content: "from the fallback" }));
    const store = new MemoryEventStore();
    const primary = openaiModel({ client: fake.client(), model: MODEL });
    const fallback = openaiModel({ client: fake.client(), model: "gpt-4.1-nano" });
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, primary, registry, {
      store,
      runId: "q",
      retry: { attempts: 3, initialDelayMs: 1 },
      fallbackModels: [fallback],
    });
    expect(result.answer).toBe("from the fallback");
    expect(fake.requests.map((request) => (request.body as { model: string }).model)).toEqual([MODEL, "gpt-4.1-nano"]);
    expect(failed(await store.read("q"))).toMatchObject([{ retryable: false, model: 0 }]);
  });

  it("a 401 rejects with a ModelError that is not retryable, its cause the SDK's AuthenticationError", async () => {
    const fake = await serve(failures.badKey);
    const model = openaiModel({ client: fake.client(), model: MODEL });
    const { registry } = makeWeatherRegistry();
    const error = await runAgent(WEATHER_TASK, model, registry, { retry: { attempts: 2, initialDelayMs: 1 } }).catch(
      (thrown: unknown) => thrown,
    );
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).retryable).toBe(false);
    expect((error as ModelError).cause).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(fake.requests).toHaveLength(1);
  });

  it("an explicit maxRetries multiplies with retry, and the product bounds the requests", async () => {
    const fake = await serve(...Array.from({ length: 6 }, () => failures.serverError));
    const model = openaiModel({ client: fake.client(), model: MODEL, maxRetries: 1 });
    const { registry } = makeWeatherRegistry();
    const error = await runAgent(WEATHER_TASK, model, registry, { retry: { attempts: 1, initialDelayMs: 1 } }).catch(
      (thrown: unknown) => thrown,
    );
    expect((error as ModelError).retryable).toBe(true);
    // (1 + maxRetries) × (1 + attempts) = 4 requests, never more.
    expect(fake.requests).toHaveLength(4);
  });
});
