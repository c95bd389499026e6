import { describe, expect, it } from "vitest";
import {
  type AgentStreamEvent,
  final,
  MemoryEventStore,
  type Model,
  ModelError,
  resumeAgent,
  runAgent,
  streamAgent,
  ToolRegistry,
} from "../../src/index.js";
import { WEATHER_TASK as TASK } from "../../src/testing.js";

const registry = new ToolRegistry();

/** A model that throws each of `failures` in turn, then answers. */
function flaky(failures: readonly unknown[]): Model {
  let calls = 0;
  return () => {
    const failure = failures[calls];
    calls += 1;
    if (failure !== undefined) throw failure;
    return final("It is 30 C in Pune.");
  };
}

function failure(message: string, retryable: boolean, retryAfterMs?: number): Error {
  return Object.assign(new Error(message), { retryable }, retryAfterMs === undefined ? {} : { retryAfterMs });
}

/** The events in short: each failure with its model and error, each wait with its milliseconds. */
const outline = (events: readonly AgentStreamEvent[]) =>
  events
    .filter((e) => !e.type.endsWith("-delta"))
    .map((e) => {
      if (e.type === "step-started") return `${e.type} ${e.step}`;
      if (e.type === "retry-waiting") return `retry-waiting ${e.step} ${e.delayMs} ms`;
      if (e.type !== "logged") return e.type;
      if (e.event.type === "model.failed") return `model.failed model ${e.event.model}: ${e.event.error}`;
      return e.event.type;
    });

describe("a failed model attempt as the run tells it", () => {
  it("each failure is told once it is logged, then the wait before the same model, then the fallback's attempt", async () => {
    const store = new MemoryEventStore();
    const logged: string[] = [];
    const told: AgentStreamEvent[] = [];
    const stream = streamAgent(
      TASK,
      flaky([failure("429 Rate limit reached", true, 3), failure("401", false)]),
      registry,
      {
        store,
        runId: "s",
        retry: { attempts: 2, initialDelayMs: 1 },
        fallbackModels: [flaky([])],
        onLogged: (event) => logged.push(event.type),
        onEvent: (event) => {
          // What is told of a failure is already in the log.
          if (event.type === "logged") expect(logged.at(-1)).toBe(event.event.type);
          told.push(event);
        },
      },
    );
    const events: AgentStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect((await stream.result).status).toBe("done");
    expect(events).toEqual(told);
    expect(outline(events)).toEqual([
      "run.started",
      "step-started 1",
      "model.failed model 0: model call 1 failed: Error: 429 Rate limit reached",
      // The provider's retry-after is kept as it is.
      "retry-waiting 1 3 ms",
      "retry.waited",
      "step-started 1",
      "model.failed model 0: model call 1 failed: Error: 401",
      "step-started 1",
      "model.replied",
      "run.finished",
      "finished",
    ]);
    const failed = (await store.read("s")).filter((event) => event.type === "model.failed");
    const toldFailures = events.flatMap((e) =>
      e.type === "logged" && e.event.type === "model.failed" ? [e.event] : [],
    );
    expect(toldFailures).toEqual(failed.map(({ seq, at, hash, ...event }) => event));
    expect(toldFailures[0]).toMatchObject({ retryable: true, retryAfterMs: 3, model: 0 });
  });

  it("the wait told is the one waited: the harness's backoff with its jitter, between half of it and all of it", async () => {
    const events: AgentStreamEvent[] = [];
    await runAgent(TASK, flaky([failure("503", true), failure("503", true)]), registry, {
      retry: { attempts: 2, initialDelayMs: 40, maxDelayMs: 60 },
      onEvent: (event) => events.push(event),
    });
    const waits = events.flatMap((event) => (event.type === "retry-waiting" ? [event.delayMs] : []));
    expect(waits).toHaveLength(2);
    // 40 ms, then 80 ms cut to the 60 ms longest wait; each jittered.
    expect(waits[0]).toBeGreaterThanOrEqual(20);
    expect(waits[0]).toBeLessThanOrEqual(40);
    expect(waits[1]).toBeGreaterThanOrEqual(30);
    expect(waits[1]).toBeLessThanOrEqual(60);
  });

  it("the last failure is told before the run rejects with it", async () => {
    const stream = streamAgent(TASK, flaky([failure("529 overloaded_error", true)]), registry, {
      retry: { attempts: 0 },
    });
    const events: AgentStreamEvent[] = [];
    const thrown = await (async () => {
      for await (const event of stream) events.push(event);
    })().catch((error: unknown) => error);
    expect(ModelError.isInstance(thrown)).toBe(true);
    await expect(stream.result).rejects.toThrow(ModelError);
    expect(outline(events)).toEqual([
      "run.started",
      "step-started 1",
      "model.failed model 0: model call 1 failed: Error: 529 overloaded_error",
    ]);
  });

  it("without retry or fallbackModels nothing new is told: the failure rejects the run as before", async () => {
    const events: AgentStreamEvent[] = [];
    await expect(
      runAgent(TASK, flaky([failure("529", true)]), registry, { onEvent: (event) => events.push(event) }),
    ).rejects.toThrow(ModelError);
    expect(outline(events)).toEqual(["run.started", "step-started 1"]);
  });
});

describe("a run resumed in its backoff", () => {
  it("tells the wait for the step the log left it in, before it asks the model again", async () => {
    const store = new MemoryEventStore();
    const controller = new AbortController();
    await runAgent(TASK, flaky([failure("429", true, 5)]), registry, {
      store,
      runId: "w",
      retry: { attempts: 1 },
      onLogged: (event) => {
        if (event.type === "model.failed") queueMicrotask(() => controller.abort());
      },
      signal: controller.signal,
    });
    // The log as a crash in the wait leaves it: the start and the failure.
    const crashed = new MemoryEventStore();
    for (const event of (await store.read("w")).slice(0, 2)) await crashed.append("w", event);
    const events: AgentStreamEvent[] = [];
    const resumed = await resumeAgent("w", flaky([]), registry, {
      store: crashed,
      onEvent: (event) => events.push(event),
    });
    expect(resumed.status).toBe("done");
    expect(outline(events)).toEqual([
      "retry-waiting 1 5 ms",
      "retry.waited",
      "step-started 1",
      "model.replied",
      "run.finished",
      "finished",
    ]);
  });
});
