import { afterEach, describe, expect, it, vi } from "vitest";
import {
  asks,
  final,
  MemoryEventStore,
  replayRun,
  runAgent,
  scriptedModel,
  ToolRegistry,
  ToolSchemaError,
  toolCall,
} from "../../src/index.js";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../../src/machine.js";
import { comparable, observationOf, traceProblem } from "../run/trace.js";

const timedOut = (name: string, ms: number) =>
  `ERROR: ${name} timed out after ${ms} ms. It may still have had an effect; check before calling it again.`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Seen {
  /** The signal each invocation got, by tool name. */
  readonly signals: Map<string, AbortSignal>;
  /** Whether the signal was already aborted when the function started. */
  readonly abortedAtStart: Map<string, boolean>;
}

/**
 * `hang` never settles; `slow` settles after `ms` milliseconds; `quick` returns at once; `late` rejects
 * after `ms` milliseconds; each records the signal it got.
 */
function tools(options: { hangTimeoutMs?: number; ms?: number } = {}) {
  const seen: Seen = { signals: new Map(), abortedAtStart: new Map() };
  const note = (name: string, signal: AbortSignal) => {
    seen.signals.set(name, signal);
    seen.abortedAtStart.set(name, signal.aborted);
  };
  const registry = new ToolRegistry();
  const noArgs = { type: "object" } as const;
  registry.register(
    "hang",
    "Never ends.",
    noArgs,
    (_args: unknown, { signal }: { signal: AbortSignal }) => {
      note("hang", signal);
      return new Promise(() => {});
    },
    options.hangTimeoutMs === undefined ? {} : { timeoutMs: options.hangTimeoutMs },
  );
  registry.register("slow", "Takes a while.", noArgs, async (_args: unknown, { signal }: { signal: AbortSignal }) => {
    note("slow", signal);
    await sleep(options.ms ?? 5);
    return "slow result";
  });
  registry.register("late", "Fails late.", noArgs, async (_args: unknown, { signal }: { signal: AbortSignal }) => {
    note("late", signal);
    await sleep(options.ms ?? 5);
    throw new Error("too late");
  });
  registry.register("quick", "Returns at once.", noArgs, (_args: unknown, { signal }: { signal: AbortSignal }) => {
    note("quick", signal);
    return "quick result";
  });
  return { registry, seen };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("tool timeouts", () => {
  it("per run: a tool whose promise never settles is answered with the timeout ERROR, and the loop goes on", async () => {
    const { registry } = tools();
    const model = scriptedModel([asks(toolCall("h", "hang"), toolCall("q", "quick")), final("went on")]);
    // The hanging tool never settles: the run's end is the timeout's doing, however long the machine took.
    const result = await runAgent("t", model, registry, { toolTimeoutMs: 20 });
    expect([result.status, result.answer, result.steps]).toEqual(["done", "went on", 2]);
    expect(observationOf(result.messages, "h")).toBe(timedOut("hang", 20));
    expect(observationOf(result.messages, "q")).toBe('"quick result"');
    expect(traceProblem(result.messages)).toBeNull();
  });

  it("the tool's signal is live when it starts and aborts on the timeout, saying so", async () => {
    const { registry, seen } = tools();
    await runAgent("t", scriptedModel([asks(toolCall("h", "hang")), final("ok")]), registry, { toolTimeoutMs: 10 });
    const signal = seen.signals.get("hang");
    expect(seen.abortedAtStart.get("hang")).toBe(false);
    expect(signal?.aborted).toBe(true);
    expect(String(signal?.reason)).toContain("timed out after 10 ms");
  });

  it("per tool: the tool's own timeoutMs wins over the run's, either way", async () => {
    const shorter = tools({ hangTimeoutMs: 15 });
    const r1 = await runAgent("t", scriptedModel([asks(toolCall("h", "hang")), final("ok")]), shorter.registry, {
      toolTimeoutMs: 60_000,
    });
    expect(observationOf(r1.messages, "h")).toBe(timedOut("hang", 15));
    // A tool allowed longer than the run's default is not cut short by it.
    const longer = tools({ ms: 40 });
    longer.registry.register("patient", "Waits.", { type: "object" }, () => sleep(40).then(() => "waited"), {
      timeoutMs: 5_000,
    });
    const r2 = await runAgent("t", scriptedModel([asks(toolCall("p", "patient")), final("ok")]), longer.registry, {
      toolTimeoutMs: 5,
    });
    expect(observationOf(r2.messages, "p")).toBe('"waited"');
  });

  it("a tool's context tells it how long it may take: its own timeoutMs, else the run's, Infinity for none", async () => {
    const told = new Map<string, number | undefined>();
    const registry = new ToolRegistry();
    const tell = (name: string) => (_args: unknown, context: { timeoutMs?: number }) =>
      told.set(name, context.timeoutMs);
    registry.register("runs", "d", { type: "object" }, tell("runs"));
    registry.register("own", "d", { type: "object" }, tell("own"), { timeoutMs: 5_000 });
    const model = () => scriptedModel([asks(toolCall("r", "runs"), toolCall("o", "own")), final("ok")]);
    await runAgent("t", model(), registry, { toolTimeoutMs: 120_000 });
    expect(Object.fromEntries(told)).toEqual({ runs: 120_000, own: 5_000 });
    await runAgent("t", model(), registry, { toolTimeoutMs: Number.POSITIVE_INFINITY });
    expect(told.get("runs")).toBe(Number.POSITIVE_INFINITY);
    await runAgent("t", model(), registry);
    expect(told.get("runs")).toBe(DEFAULT_TOOL_TIMEOUT_MS);
  });

  it("a tool that settles before its timeout gives its result; one that rejects after it changes nothing", async () => {
    const { registry } = tools({ ms: 60 });
    const model = scriptedModel([asks(toolCall("s", "slow"), toolCall("l", "late")), final("ok")]);
    // The timeout is far past the tool's 60 ms, however loaded the machine.
    const fast = await runAgent("t", model, registry, { toolTimeoutMs: 600_000 });
    expect(observationOf(fast.messages, "s")).toBe('"slow result"');
    expect(observationOf(fast.messages, "l")).toBe("ERROR: late failed: Error: too late");
    const late = await runAgent("t", scriptedModel([asks(toolCall("l", "late")), final("ok")]), registry, {
      toolTimeoutMs: 10,
    });
    expect(observationOf(late.messages, "l")).toBe(timedOut("late", 10));
    const before = JSON.stringify(late);
    await sleep(80);
    expect(JSON.stringify(late)).toBe(before);
  });

  it("the timeout observation is what the log keeps: replay gives the live result", async () => {
    const { registry } = tools();
    const store = new MemoryEventStore();
    const result = await runAgent("t", scriptedModel([asks(toolCall("h", "hang")), final("ok")]), registry, {
      toolTimeoutMs: 5,
      store,
      runId: "t1",
    });
    const log = await store.read("t1");
    expect(log.find((e) => e.type === "tool.finished")).toMatchObject({ callId: "h", content: timedOut("hang", 5) });
    expect(replayRun(log).result).toEqual(comparable(result));
  });

  it(`defaults to ${DEFAULT_TOOL_TIMEOUT_MS} ms per tool when neither the run nor the tool sets one`, async () => {
    expect(DEFAULT_TOOL_TIMEOUT_MS).toBe(60_000);
    const timers = vi.spyOn(globalThis, "setTimeout");
    const { registry } = tools({ ms: 1 });
    const result = await runAgent("t", scriptedModel([asks(toolCall("s", "slow")), final("ok")]), registry);
    expect(result.status).toBe("done");
    expect(timers.mock.calls.map(([, ms]) => ms)).toContain(60_000);
  });

  it("sets no timer for a tool that returns at once: nothing could interrupt it anyway", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    const { registry } = tools();
    const result = await runAgent("t", scriptedModel([asks(toolCall("q", "quick")), final("ok")]), registry);
    expect(observationOf(result.messages, "q")).toBe('"quick result"');
    expect(timers.mock.calls.map(([, ms]) => ms)).not.toContain(60_000);
  });

  it("a tool that blocks the event loop cannot be interrupted: its result comes back, past its timeout", async () => {
    const registry = new ToolRegistry();
    registry.register(
      "spin",
      "Blocks.",
      { type: "object" },
      () => {
        const until = Date.now() + 40;
        while (Date.now() < until) {
          // busy: no timer can fire meanwhile
        }
        return "spun";
      },
      { timeoutMs: 5 },
    );
    const result = await runAgent("t", scriptedModel([asks(toolCall("s", "spin")), final("ok")]), registry);
    expect(observationOf(result.messages, "s")).toBe('"spun"');
  });

  it("a tool that listens to its signal stops its own work on the timeout", async () => {
    let ticks = 0;
    const registry = new ToolRegistry();
    registry.register(
      "poll",
      "Polls until stopped.",
      { type: "object" },
      (_args: unknown, { signal }: { signal: AbortSignal }) =>
        new Promise((_resolve, reject) => {
          const timer = setInterval(() => {
            ticks += 1;
          }, 2);
          signal.addEventListener("abort", () => {
            clearInterval(timer);
            reject(signal.reason);
          });
        }),
      { timeoutMs: 20 },
    );
    const result = await runAgent("t", scriptedModel([asks(toolCall("p", "poll")), final("ok")]), registry);
    expect(observationOf(result.messages, "p")).toBe(timedOut("poll", 20));
    const after = ticks;
    await sleep(30);
    expect(ticks).toBe(after);
  });
});

describe("tool timeouts: limits that make no sense are refused", () => {
  it("Infinity means no timeout, per tool and per run: the tool takes the time it needs", async () => {
    const registry = new ToolRegistry();
    registry.register("slowish", "d", { type: "object" }, () => sleep(30).then(() => "done"), {
      timeoutMs: Number.POSITIVE_INFINITY,
    });
    registry.register("other", "d", { type: "object" }, () => sleep(30).then(() => "also done"));
    const model = scriptedModel([asks(toolCall("s", "slowish"), toolCall("o", "other")), final("ok")]);
    const result = await runAgent("t", model, registry, { toolTimeoutMs: Number.POSITIVE_INFINITY });
    expect(observationOf(result.messages, "s")).toBe('"done"');
    expect(observationOf(result.messages, "o")).toBe('"also done"');
  });

  it.each([0, -1, Number.NaN, 2 ** 31])("per tool: timeoutMs %s is a ToolSchemaError", (ms) => {
    const registry = new ToolRegistry();
    expect(() => registry.register("t", "d", { type: "object" }, () => 1, { timeoutMs: ms })).toThrow(ToolSchemaError);
  });

  // runAgent checks toolTimeoutMs before anything runs: 0 or a negative number would time every tool out at
  // once, and a timer cannot wait longer than 2^31 - 1 ms (Node fires it after 1 ms instead).
  it.each([0, -1, Number.NaN, 2 ** 31])(
    "per run: toolTimeoutMs %s is a RangeError before anything runs",
    async (ms) => {
      const { registry } = tools();
      const model = scriptedModel([asks(toolCall("q", "quick")), final("ok")]);
      await expect(runAgent("t", model, registry, { toolTimeoutMs: ms })).rejects.toThrow(RangeError);
      expect(model.seen).toEqual([]);
    },
  );

  // Regression test; before the fix: a per-tool timeoutMs above 2^31 - 1 ms (about 24.8 days) passes `register`, but Node clamps such a
  // timer to 1 ms: the tool "times out after 2147483648 ms" at once. Expected: refused at registration
  // (ToolSchemaError), or the timer capped/split so that the tool gets its time.
  it("per tool: a timeoutMs too large for a timer is refused at registration, not turned into 1 ms", async () => {
    const registry = new ToolRegistry();
    const register = () =>
      registry.register("slowish", "d", { type: "object" }, () => sleep(20).then(() => "done"), { timeoutMs: 2 ** 31 });
    let registered = true;
    try {
      register();
    } catch (error) {
      registered = false;
      expect(error).toBeInstanceOf(ToolSchemaError);
    }
    if (!registered) return;
    const result = await runAgent("t", scriptedModel([asks(toolCall("s", "slowish")), final("ok")]), registry);
    expect(observationOf(result.messages, "s")).toBe('"done"');
  });
});
