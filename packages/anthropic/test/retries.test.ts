import { MemoryEventStore, runAgent } from "@agentloop/core";
import type { StoredEvent } from "@agentloop/core/store";
import { type FakeStep, makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel } from "../src/index.js";
import { type FakeAnthropic, failures, MODEL, message, startFakeAnthropic } from "./fake-anthropic.js";
import { overloadedMidStream } from "./fixtures/streams.js";

let server: FakeAnthropic | undefined;

async function serve(...steps: FakeStep[]): Promise<FakeAnthropic> {
  server = await startFakeAnthropic(steps);
  return server;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const failed = (events: readonly StoredEvent[]) =>
  events.flatMap((event) => (event.type === "model.failed" ? [event] : []));
const answer = message({ content: [{ type: "text", text: "It is 86 F in Pune." }] });

describe("Anthropic errors under the run's retry", () => {
  it("a 529 overloaded_error is retryable: logged with its retry-after-ms, one request per attempt", async () => {
    const fake = await serve(failures.overloaded, answer);
    const store = new MemoryEventStore();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 });
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, model, registry, { store, runId: "o", retry: { attempts: 1 } });
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
    expect(fake.requests).toHaveLength(2);
    expect(failed(await store.read("o"))).toMatchObject([{ retryable: true, retryAfterMs: 1, model: 0 }]);
  });

  it("an overloaded_error event in a stream is retryable too", async () => {
    const fake = await serve(overloadedMidStream, answer);
    const store = new MemoryEventStore();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 });
    const { registry } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, model, registry, {
      store,
      runId: "s",
      retry: { attempts: 1, initialDelayMs: 1 },
      onEvent: () => {},
    });
    expect(result.status).toBe("done");
    const [failure] = failed(await store.read("s"));
    expect(failure).toMatchObject({ retryable: true });
    expect(failure?.error).toMatch(/AnthropicStreamError: the stream broke off/);
  });

  it("a 401 is not retryable: the run rejects after one request", async () => {
    const fake = await serve(failures.badKey);
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 });
    const { registry } = makeWeatherRegistry();
    const error = await runAgent(WEATHER_TASK, model, registry, { retry: { attempts: 3, initialDelayMs: 1 } }).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ name: "ModelError", retryable: false });
    expect(fake.requests).toHaveLength(1);
  });
});
