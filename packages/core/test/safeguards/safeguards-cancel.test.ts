import { describe, expect, it, vi } from "vitest";
import { hangGuard } from "../../../../hang-guard.js";
import {
  type AgentResult,
  asks,
  type EventStore,
  final,
  MemoryEventStore,
  type Message,
  type Model,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";
import { comparable, movedTo, traceProblem } from "../run/trace.js";

const closed = (id: string, name: string): Message => ({
  role: "tool",
  toolCallId: id,
  name,
  content: `ERROR: ${name} was not run to completion: the run was cancelled.`,
  isError: true,
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `quick` returns at once; `wait` resolves only when its signal aborts (then rejects); `send` needs approval. */
function tools() {
  const runs: string[] = [];
  const signals: AbortSignal[] = [];
  const registry = new ToolRegistry();
  const noArgs = { type: "object" } as const;
  registry.register("quick", "Quick.", noArgs, () => {
    runs.push("quick");
    return "quick";
  });
  registry.register("wait", "Waits.", noArgs, (_args: unknown, { signal }: { signal: AbortSignal }) => {
    runs.push("wait");
    signals.push(signal);
    return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
  });
  registry.register(
    "send",
    "Sends.",
    noArgs,
    () => {
      runs.push("send");
      return "sent";
    },
    { needsApproval: true },
  );
  return { registry, runs, signals };
}

/** A model that answers from a script, except that the call numbered `hangAt` waits until its signal aborts. */
function modelThatHangsAt(hangAt: number, replies: readonly ModelReply[]) {
  const signals: AbortSignal[] = [];
  const seen: number[] = [];
  const model: Model = (messages, _tools, { signal }) => {
    signals.push(signal);
    seen.push(messages.length);
    if (signals.length === hangAt) {
      return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("aborted"))));
    }
    const reply = replies[signals.length - 1];
    if (reply === undefined) throw new Error("script ran out");
    return reply;
  };
  return { model, signals, seen };
}

/** A store that calls `hook` after each append, with the event appended. */
function hookedStore(hook: (event: StoredEvent) => void): EventStore {
  const store = new MemoryEventStore();
  return {
    append: async (runId, event) => {
      await store.append(runId, event);
      hook(event);
    },
    read: (runId) => store.read(runId),
    list: () => store.list(),
  };
}

/** The log's cancellation and end, and that replaying it gives `result`. */
async function expectLoggedCancel(store: EventStore, runId: string, result: AgentResult): Promise<void> {
  const log = await store.read(runId);
  expect(log.slice(-2).map((e) => e.type)).toEqual(["run.cancelled", "run.finished"]);
  expect(log.at(-2)).toMatchObject({ reason: "stop" });
  expect(log.at(-1)).toMatchObject({ outcome: { status: "cancelled", steps: result.steps, tokens: result.tokens } });
  expect(replayRun(log).result).toEqual(comparable(result));
}

describe("cancellation through the run's signal", () => {
  it("before the start: cancelled at once, with the system message and the task, and the log says so", async () => {
    const { registry } = tools();
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    const store = new MemoryEventStore();
    const result = await runAgent("t", scriptedModel([final("never")]), registry, {
      signal: controller.signal,
      store,
      runId: "pre",
    });
    expect([result.status, result.answer, result.steps, result.tokens]).toEqual(["cancelled", null, 0, 0]);
    expect(result.messages.map((m) => m.role)).toEqual(["system", "user"]);
    await expectLoggedCancel(store, "pre", result);
  });

  // Regression test; before the fix: runLive starts the actor before it looks at the signal, so the first model call is already made when
  // the run is cancelled (its reply is then dropped). A real API request goes out for a run the caller had
  // cancelled. Expected: nothing is invoked. Fix: hand the run's signal to the effects (EffectPorts) and let them
  // invoke nothing once it is aborted (or check `signal.aborted` before `actor.start()`).
  it.each([false, true])("before the start: the model is never called (with a store: %s)", async (withStore) => {
    const { registry } = tools();
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    const model = scriptedModel([final("never")]);
    const store = withStore ? { store: new MemoryEventStore(), runId: "pre" } : {};
    const result = await runAgent("t", model, registry, { signal: controller.signal, ...store });
    expect(result.status).toBe("cancelled");
    expect(model.seen).toEqual([]);
  });

  it("during a model call: the model's signal aborts, the run ends cancelled with the messages so far", async () => {
    const { registry, runs } = tools();
    const controller = new AbortController();
    const { model, signals, seen } = modelThatHangsAt(2, [asks(toolCall("q1", "quick"))]);
    const running = runAgent("t", model, registry, { signal: controller.signal });
    await vi.waitFor(() => expect(signals).toHaveLength(2), { timeout: hangGuard(45_000) });
    expect(signals[1]?.aborted).toBe(false);
    controller.abort(new Error("stop"));
    const result = await running;
    expect(signals[1]?.aborted).toBe(true);
    expect([result.status, result.answer, result.steps]).toEqual(["cancelled", null, 1]);
    expect(seen).toEqual([2, 4]);
    expect(result.messages).toHaveLength(4);
    expect(runs).toEqual(["quick"]);
    expect(traceProblem(result.messages)).toBeNull();
  });

  it("during a model call, with a store: run.cancelled and run.finished are logged; replay gives the result", async () => {
    const { registry } = tools();
    const controller = new AbortController();
    const store = new MemoryEventStore();
    const { model, signals } = modelThatHangsAt(1, []);
    const running = runAgent("t", model, registry, { signal: controller.signal, store, runId: "m" });
    await vi.waitFor(() => expect(signals).toHaveLength(1), { timeout: hangGuard(45_000) });
    controller.abort(new Error("stop"));
    const result = await running;
    expect(signals[0]?.aborted).toBe(true);
    expect([result.status, result.steps, result.runId]).toEqual(["cancelled", 0, "m"]);
    await expectLoggedCancel(store, "m", result);
  });

  it("during a tool, one call at a time: its signal aborts; it and the calls after it get closing messages and never run", async () => {
    const { registry, runs, signals } = tools();
    const controller = new AbortController();
    const model = scriptedModel([
      asks(toolCall("a", "quick"), toolCall("b", "wait"), toolCall("c", "quick"), toolCall("d", "send")),
      final("never"),
    ]);
    const store = new MemoryEventStore();
    const running = runAgent("t", model, registry, {
      signal: controller.signal,
      store,
      runId: "tool",
      toolConcurrency: 1,
    });
    await vi.waitFor(() => expect(signals).toHaveLength(1), { timeout: hangGuard(45_000) });
    expect(signals[0]?.aborted).toBe(false);
    controller.abort(new Error("stop"));
    const result = await running;
    expect(signals[0]?.aborted).toBe(true);
    expect(runs).toEqual(["quick", "wait"]);
    expect(result.status).toBe("cancelled");
    expect(result.messages.slice(3)).toEqual([
      { role: "tool", toolCallId: "a", name: "quick", content: '"quick"' },
      closed("b", "wait"),
      closed("c", "quick"),
      closed("d", "send"),
    ]);
    expect(model.seen).toHaveLength(1);
    await expectLoggedCancel(store, "tool", result);
  });

  it("between two calls of one reply, one at a time: the first keeps its result, the second never runs", async () => {
    const { registry, runs } = tools();
    const controller = new AbortController();
    // The abort comes right after the first call's result is logged, before the second call starts.
    const store = hookedStore((event) => {
      if (event.type === "tool.finished" && event.callId === "a") controller.abort(new Error("stop"));
    });
    const model = scriptedModel([asks(toolCall("a", "quick"), toolCall("b", "quick", {})), final("never")]);
    const result = await runAgent("t", model, registry, {
      signal: controller.signal,
      store,
      runId: "between",
      toolConcurrency: 1,
    });
    expect(runs).toEqual(["quick"]);
    expect(result.status).toBe("cancelled");
    expect(result.messages.slice(3)).toEqual([
      { role: "tool", toolCallId: "a", name: "quick", content: '"quick"' },
      closed("b", "quick"),
    ]);
    await expectLoggedCancel(store, "between", result);
    expect((await store.read("between")).filter((e) => e.type === "tool.started")).toHaveLength(1);
  });

  it("while a decision is awaited: the call is closed, and a decision that comes later is ignored", async () => {
    const { registry, runs } = tools();
    const controller = new AbortController();
    let decide: (approved: boolean) => void = () => {};
    let asked = false;
    const model = scriptedModel([asks(toolCall("s", "send"), toolCall("q", "quick")), final("never")]);
    const running = runAgent("t", model, registry, {
      signal: controller.signal,
      approve: () =>
        new Promise((resolve) => {
          decide = (approved) => resolve({ approved });
          asked = true;
        }),
    });
    // Cancelled once the decision is asked for and the call that needed none has run.
    await vi.waitFor(() => expect([asked, runs]).toEqual([true, ["quick"]]), { timeout: hangGuard(45_000) });
    controller.abort(new Error("stop"));
    const result = await running;
    decide(true);
    await sleep(5);
    // `quick` needed no decision: it ran while `send` waited, and keeps its result.
    expect(runs).toEqual(["quick"]);
    expect(result.status).toBe("cancelled");
    expect(result.messages.slice(3)).toEqual([
      closed("s", "send"),
      { role: "tool", toolCallId: "q", name: "quick", content: '"quick"' },
    ]);
  });

  it("with several calls in flight: every one is closed in call order, the finished ones keep their results", async () => {
    const { registry, runs, signals } = tools();
    const controller = new AbortController();
    const store = new MemoryEventStore();
    const model = scriptedModel([
      asks(toolCall("w1", "wait"), toolCall("q", "quick"), toolCall("w2", "wait"), toolCall("s", "send")),
      final("never"),
    ]);
    const running = runAgent("t", model, registry, { signal: controller.signal, store, runId: "many" });
    await vi.waitFor(() => expect(signals).toHaveLength(2), { timeout: hangGuard(45_000) });
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false]);
    controller.abort(new Error("stop"));
    const result = await running;
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
    expect(runs.sort()).toEqual(["quick", "wait", "wait"]);
    expect(result.status).toBe("cancelled");
    expect(result.messages.slice(3)).toEqual([
      closed("w1", "wait"),
      { role: "tool", toolCallId: "q", name: "quick", content: '"quick"' },
      closed("w2", "wait"),
      closed("s", "send"),
    ]);
    expect(traceProblem(result.messages)).toBeNull();
    await expectLoggedCancel(store, "many", result);
  });

  // Regression test; before the fix: with a store, an abort while the approver is asked, when the approver then gives no decision (say, a
  // dialog whose Cancel button aborts the run), comes back as `awaiting_approval`: the pause wins the race in
  // runLive, the actor is stopped, and the queued `run.cancelled` is never logged. A later resume with a
  // decision runs the call the caller cancelled. Without a store the same run ends `cancelled`. Expected:
  // `cancelled` either way. Fix: in runLive, when the outcome is "paused" but the signal is aborted (a cancel
  // is queued), await the run's end instead of pausing.
  it.each([false, true])(
    "an abort inside an approver that gives no decision ends the run cancelled (with a store: %s)",
    async (withStore) => {
      const { registry, runs } = tools();
      const controller = new AbortController();
      const store = new MemoryEventStore();
      const result = await runAgent("t", scriptedModel([asks(toolCall("s", "send")), final("never")]), registry, {
        signal: controller.signal,
        approve: () => {
          controller.abort(new Error("stop"));
          return undefined;
        },
        ...(withStore ? { store, runId: "dialog" } : {}),
      });
      expect(result.status).toBe("cancelled");
      expect(result.messages.slice(3)).toEqual([closed("s", "send")]);
      if (!withStore) return;
      await expectLoggedCancel(store, "dialog", result);
      const resumed = await resumeAgent("dialog", scriptedModel([final("x")]), registry, {
        store,
        decisions: { s: { approved: true } },
      });
      expect(resumed.status).toBe("cancelled");
      expect(runs).toEqual([]);
    },
  );

  // Regression test; before the fix: the same late look at the signal in resumeAgent: resuming with an aborted signal still runs the next
  // tool (its result is dropped, but its effect happened) or calls the model. Expected: nothing is invoked.
  it("resuming with an aborted signal runs no tool and calls no model", async () => {
    const { registry, runs } = tools();
    const store = new MemoryEventStore();
    const full = await runAgent("t", scriptedModel([asks(toolCall("a", "quick")), final("done")]), registry, {
      store,
      runId: "full",
    });
    expect(full.status).toBe("done");
    const log = await store.read("full");
    // The process died right after the reply was logged: the next thing to do is to run `a`.
    const cutStore = new MemoryEventStore();
    for (const event of movedTo("cut", log.slice(0, 2))) await cutStore.append("cut", event);
    runs.length = 0;
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    const model = scriptedModel([final("done")]);
    const result = await resumeAgent("cut", model, registry, { store: cutStore, signal: controller.signal });
    expect(result.status).toBe("cancelled");
    expect(runs).toEqual([]);
    expect(model.seen).toEqual([]);
  });

  // A store that fails to log the cancellation fails the run, like every other store failure; and nothing is
  // invoked after the abort, whatever the store does.
  it("a store that cannot log the cancellation does not make the run ignore it", async () => {
    const { registry, runs } = tools();
    const inner = new MemoryEventStore();
    const store: EventStore = {
      append: async (runId, event) => {
        if (event.type === "run.cancelled") throw new Error("disk full");
        await inner.append(runId, event);
      },
      read: (runId) => inner.read(runId),
      list: () => inner.list(),
    };
    const controller = new AbortController();
    const { model, signals } = modelThatHangsAt(Number.POSITIVE_INFINITY, [
      asks(toolCall("q", "quick")),
      final("done"),
    ]);
    // The model call is held on its way to the model until the run is cancelled, then let through.
    let calling = false;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: Model = async (messages, specs, options) => {
      calling = true;
      await released;
      return model(messages, specs, options);
    };
    const running = runAgent("t", slow, registry, { signal: controller.signal, store, runId: "full-disk" });
    await vi.waitFor(() => expect(calling).toBe(true), { timeout: hangGuard(45_000) });
    controller.abort(new Error("stop"));
    release();
    const outcome = await running.then(
      (result) => result.status,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(["disk full", "cancelled"]).toContain(outcome);
    // The model call in flight at the abort reaches the model, aborted.
    await vi.waitFor(() => expect(signals).toHaveLength(1), { timeout: hangGuard(45_000) });
    expect(signals[0]?.aborted).toBe(true);
    expect(runs).toEqual([]);
  });

  it("an abort after the run ended changes nothing and logs nothing", async () => {
    const { registry } = tools();
    const controller = new AbortController();
    const store = new MemoryEventStore();
    const result = await runAgent("t", scriptedModel([final("ok")]), registry, {
      signal: controller.signal,
      store,
      runId: "over",
    });
    const log = await store.read("over");
    controller.abort(new Error("too late"));
    await sleep(5);
    expect(result.status).toBe("done");
    expect(await store.read("over")).toEqual(log);
    expect(log.some((e) => e.type === "run.cancelled")).toBe(false);
  });

  it("a cancelled run stays cancelled: resume gives its result back, logs nothing and invokes nothing", async () => {
    const { registry, runs } = tools();
    const controller = new AbortController();
    const store = new MemoryEventStore();
    const running = runAgent("t", scriptedModel([asks(toolCall("w", "wait"))]), registry, {
      signal: controller.signal,
      store,
      runId: "c",
    });
    await vi.waitFor(() => expect(runs).toEqual(["wait"]), { timeout: hangGuard(45_000) });
    controller.abort("not an Error");
    const result = await running;
    const log = await store.read("c");
    // A reason that is not an Error is not logged.
    expect(log.find((e) => e.type === "run.cancelled")).not.toHaveProperty("reason");
    const model = scriptedModel([final("never")]);
    const resumed = await resumeAgent("c", model, registry, { store });
    expect(resumed).toEqual(result);
    expect(await store.read("c")).toEqual(log);
    expect(model.seen).toEqual([]);
    expect(runs).toEqual(["wait"]);
  });
});

describe("an abort after the run ended", () => {
  it("is no event for the machine: nothing is sent to a stopped actor, and the result stands", async () => {
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const controller = new AbortController();
      const { registry } = tools();
      // The caller aborts as soon as it hears the run finish, before runAgent has returned.
      const result = await runAgent("t", scriptedModel([final("done")]), registry, {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "finished") controller.abort(new Error("stopped by the caller"));
        },
      });
      expect(result.status).toBe("done");
      expect(warnings.mock.calls.map((call) => String(call[0]))).toEqual([]);
    } finally {
      warnings.mockRestore();
    }
  });
});
