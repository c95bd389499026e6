import { describe, expect, it } from "vitest";
import {
  final,
  MemoryEventStore,
  type Model,
  ModelError,
  replayRun,
  resumeAgent,
  runAgent,
  ToolRegistry,
} from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";
import { WEATHER_TASK as TASK } from "../../src/testing.js";

const registry = new ToolRegistry();
const answer = final("It is 30 C in Pune.");

/** A model that fails with each of `failures` in turn (an error, or a reply), then answers. */
function flaky(failures: readonly unknown[]): Model & { readonly calls: number } {
  let calls = 0;
  const model = () => {
    const failure = failures[calls];
    calls += 1;
    if (failure !== undefined) throw failure;
    return answer;
  };
  return Object.defineProperty(model, "calls", { get: () => calls }) as unknown as Model & { readonly calls: number };
}

/** A failure as a custom model throws it: any error with `retryable` (and `retryAfterMs`) set. */
function overloaded(retryAfterMs?: number): Error {
  return Object.assign(
    new Error("529 overloaded_error"),
    { retryable: true },
    retryAfterMs === undefined ? {} : { retryAfterMs },
  );
}

const badKey = Object.assign(new Error("401 invalid x-api-key"), { retryable: false });
const types = (events: readonly StoredEvent[]) => events.map((event) => event.type);

describe("retries and fallback models", () => {
  it("a retryable failure is logged, waited out and tried again on the same model; the reply says which model", async () => {
    const store = new MemoryEventStore();
    const model = flaky([overloaded(), overloaded()]);
    const result = await runAgent(TASK, model, registry, {
      store,
      runId: "r",
      retry: { attempts: 2, initialDelayMs: 1 },
    });
    expect(result).toMatchObject({ status: "done", steps: 1 });
    const events = await store.read("r");
    expect(types(events)).toEqual([
      "run.started",
      "model.failed",
      "retry.waited",
      "model.failed",
      "retry.waited",
      "model.replied",
      "run.finished",
    ]);
    expect(events[1]).toMatchObject({
      retryable: true,
      model: 0,
      error: "model call 1 failed: Error: 529 overloaded_error",
    });
    expect(events[5]).toMatchObject({ model: 0 });
    expect(replayRun(events).result).toMatchObject({ status: "done", steps: 1 });
  });

  it("a failure logs its error's class when its name is the plain Error (SDK errors that do not set name), so spans from the log name it as live ones do", async () => {
    // The OpenAI SDK's errors keep `name` "Error"; their class says what failed.
    class RateLimitError extends Error {
      readonly retryable = true;
    }
    class NamedError extends Error {
      override readonly name = "Overloaded";
      readonly retryable = true;
    }
    const store = new MemoryEventStore();
    const model = flaky([new RateLimitError("429 Rate limit reached"), new NamedError("529"), overloaded()]);
    await runAgent(TASK, model, registry, { store, runId: "c", retry: { attempts: 3, initialDelayMs: 1 } });
    const failures = (await store.read("c")).filter((event) => event.type === "model.failed");
    expect(failures.map((event) => (event.type === "model.failed" ? event.error : ""))).toEqual([
      "model call 1 failed: RateLimitError: 429 Rate limit reached",
      "model call 1 failed: Overloaded: 529",
      "model call 1 failed: Error: 529 overloaded_error",
    ]);
  });

  it("after its retries the next fallback model gets the call; a non-retryable failure moves on at once", async () => {
    const store = new MemoryEventStore();
    const primary = flaky([overloaded(), badKey]);
    const second = flaky([overloaded()]);
    const result = await runAgent(TASK, primary, registry, {
      store,
      runId: "f",
      retry: { attempts: 1, initialDelayMs: 1 },
      fallbackModels: [second],
    });
    expect(result.status).toBe("done");
    const events = await store.read("f");
    expect(events.filter((event) => event.type === "model.failed").map((event) => event.model)).toEqual([0, 0, 1]);
    expect(events.find((event) => event.type === "model.replied")).toMatchObject({ model: 1 });
  });

  it("when every attempt fails the run rejects with ModelError (retryable, SDK cause), the failures logged and the log resumable", async () => {
    const store = new MemoryEventStore();
    const primary = flaky([overloaded(), overloaded()]);
    const second = flaky([overloaded(), overloaded()]);
    const error = await runAgent(TASK, primary, registry, {
      store,
      runId: "x",
      retry: { attempts: 1, initialDelayMs: 1 },
      fallbackModels: [second],
    }).catch((thrown: unknown) => thrown);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).retryable).toBe(true);
    expect(((error as ModelError).cause as Error).message).toBe("529 overloaded_error");
    // (1 + attempts) × (1 + fallbackModels.length) attempts, each logged.
    expect(primary.calls + second.calls).toBe(4);
    expect(types(await store.read("x")).filter((type) => type === "model.failed")).toHaveLength(4);
    const resumed = await resumeAgent("x", flaky([]), registry, { store, fallbackModels: [second] });
    expect(resumed).toMatchObject({ status: "done", steps: 1 });
  });

  it("a crash during the backoff resumes with the right model and attempt count", async () => {
    const store = new MemoryEventStore();
    const controller = new AbortController();
    const primary = flaky([overloaded(5)]);
    const run = runAgent(TASK, primary, registry, {
      store,
      runId: "c",
      retry: { attempts: 1, initialDelayMs: 1 },
      fallbackModels: [flaky([])],
      onLogged: (event) => {
        if (event.type === "model.failed") queueMicrotask(() => controller.abort());
      },
      signal: controller.signal,
    });
    expect((await run).status).toBe("cancelled");
    // The same log cut before its cancellation is what a crash in the wait leaves.
    const events = (await store.read("c")).slice(0, 2);
    const crashed = new MemoryEventStore();
    for (const event of events) await crashed.append("c", event);
    const primaryAgain = flaky([overloaded()]);
    const fallback = flaky([]);
    const resumed = await resumeAgent("c", primaryAgain, registry, { store: crashed, fallbackModels: [fallback] });
    expect(resumed.status).toBe("done");
    // One failure was logged on the run's model with one attempt allowed: the resumed run waits,
    // tries it once more, then moves on to the fallback, which answers.
    expect(primaryAgain.calls).toBe(1);
    expect(fallback.calls).toBe(1);
    expect(types(await crashed.read("c")).slice(2)).toEqual([
      "retry.waited",
      "model.failed",
      "model.replied",
      "run.finished",
    ]);
  });

  it("the run's signal ends a backoff at once with cancelled, and no fallback is asked after it", async () => {
    const controller = new AbortController();
    const fallback = flaky([]);
    // The backoff is an hour long, and the signal fires once the failure is logged (the run is then
    // in its backoff): a backoff that the signal did not end would outlast the test's time.
    const hour = 3_600_000;
    const store = new (class extends MemoryEventStore {
      override async append(runId: string, event: StoredEvent): Promise<void> {
        await super.append(runId, event);
        if (event.type === "model.failed") controller.abort();
      }
    })();
    const run = runAgent(TASK, flaky([overloaded(hour)]), registry, {
      store,
      retry: { attempts: 3, initialDelayMs: hour, maxDelayMs: hour },
      fallbackModels: [fallback],
      signal: controller.signal,
    });
    expect((await run).status).toBe("cancelled");
    expect(fallback.calls).toBe(0);
  });

  it("an attempt aborted by the run's signal is not a failure: nothing is retried, no fallback asked", async () => {
    const controller = new AbortController();
    const fallback = flaky([]);
    let calls = 0;
    const hanging: Model = (_messages, _tools, { signal }) => {
      calls += 1;
      return new Promise((_, reject) => {
        signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { retryable: true })));
      });
    };
    const store = new MemoryEventStore();
    const run = runAgent(TASK, hanging, registry, {
      store,
      runId: "a",
      retry: { attempts: 3, initialDelayMs: 1 },
      fallbackModels: [fallback],
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 10);
    expect((await run).status).toBe("cancelled");
    expect([calls, fallback.calls]).toEqual([1, 0]);
    expect(types(await store.read("a"))).toEqual(["run.started", "run.cancelled", "run.finished"]);
  });

  it("each attempt passes the budget check first: a budget reached ends the run before the next attempt", async () => {
    const fallback = flaky([]);
    const result = await runAgent(TASK, flaky([badKey]), registry, {
      tokenBudget: 20,
      fallbackModels: [fallback],
    });
    // The task alone is over the budget: no attempt is made, not even the first.
    expect(result.status).toBe("token_budget");
    expect(fallback.calls).toBe(0);
  });

  it("without retry or fallbackModels a failure rejects at once and nothing new is logged (as before)", async () => {
    const store = new MemoryEventStore();
    const model = flaky([overloaded()]);
    await expect(runAgent(TASK, model, registry, { store, runId: "n" })).rejects.toThrow(ModelError);
    expect(model.calls).toBe(1);
    expect(types(await store.read("n"))).toEqual(["run.started"]);
  });

  it("refuses bad retry options with one line", async () => {
    await expect(runAgent(TASK, flaky([]), registry, { retry: { attempts: -1 } })).rejects.toThrow(
      "retry.attempts must be a whole number, 0 or more; got -1",
    );
    await expect(runAgent(TASK, flaky([]), registry, { fallbackModels: ["gpt" as unknown as Model] })).rejects.toThrow(
      "fallbackModels[0] must be a model (a function); got string",
    );
  });
});
