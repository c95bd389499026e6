import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { AgentStreamEvent, Guardrail, GuardrailVerdict } from "../../src/index.js";
import { continueAgent, MemoryEventStore, replayRun, runAgent, streamAgent } from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";
import { asks, final, makeWeatherRegistry, scriptedModel, toolCall } from "../../src/testing.js";

// What peers' users ran into with guardrails and typed answers, each shown not to happen here:
// an input guardrail's trip that comes after the model was called or a tool ran (the streaming
// races in openai-agents-python #300, #889, #991, #2688), an answer "checked" on a step that asked
// for tools (vercel/ai #8009), and a run stopped by its step limit mid-tools passing for an
// answer (vercel/ai #13075); and the guardrails' own edges: checks that throw anything, hang,
// ignore their signal, or run one after another instead of at once.

const Weather = z.object({ city: z.string(), celsius: z.number() });

function after<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

async function collect(stream: AsyncIterable<AgentStreamEvent>): Promise<AgentStreamEvent[]> {
  const events: AgentStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** A told event's kind: a logged event's own type. */
const kindOf = (event: AgentStreamEvent): string => (event.type === "logged" ? event.event.type : event.type);

describe("input guardrails do not race the turn they guard", () => {
  it("streaming: a slow trip after a fast pass, and neither the model nor a tool ever runs, nor a step starts", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const model = scriptedModel([asks(toolCall("c1", "get_weather", { city: "Pune" })), final("30 C")]);
    const guardrails = {
      input: [
        { name: "fast", check: () => ({ tripped: false }) as const },
        { name: "slow", check: () => after(40, { tripped: true, reason: "off topic" } as const) },
      ],
    };
    const events = await collect(streamAgent("hi", model, registry, { guardrails }));
    expect(model.seen).toHaveLength(0);
    expect(runs).toEqual([]);
    expect(events.map(kindOf)).toEqual([
      "run.started",
      "guardrail-started",
      "guardrail-started",
      "guardrail.checked",
      "guardrail.checked",
      "run.finished",
      "finished",
    ]);
    expect(events.at(-1)).toMatchObject({ result: { status: "guardrail_tripped", guardrail: { name: "slow" } } });
  });

  it("streaming: an output guardrail's trip is the run's end; no event claims the answer before its verdict", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel([final('{"city":"Pune","celsius":30}')]);
    const policy: Guardrail = { name: "policy", check: () => after(20, { tripped: true, reason: "no weather" }) };
    const events = await collect(
      streamAgent("q", model, registry, { output: Weather, guardrails: { output: [policy] } }),
    );
    const verdict = events.findIndex((event) => kindOf(event) === "guardrail.checked");
    expect(events.slice(verdict + 1).map(kindOf)).toEqual(["run.finished", "finished"]);
    expect(events.at(-1)).toMatchObject({ result: { status: "guardrail_tripped", answer: null } });
    const finished = events.at(-1) as Extract<AgentStreamEvent, { type: "finished" }>;
    expect(finished.result.output).toBeUndefined();
  });
});

/** A store whose writes of checks take a while, and that notes when each write is done. */
class SlowChecksStore extends MemoryEventStore {
  constructor(private readonly order: string[]) {
    super();
  }

  override async append(runId: string, event: StoredEvent): Promise<void> {
    if (event.type === "guardrail.checked" || event.type === "output.checked") await after(15, null);
    await super.append(runId, event);
    this.order.push(event.type === "guardrail.checked" ? `logged ${event.name}` : `logged ${event.type}`);
  }
}

describe("every verdict is logged before the machine acts on it", () => {
  it("the model is called only once both input verdicts are written; the run ends only once the output verdict is", async () => {
    const { registry } = makeWeatherRegistry();
    const order: string[] = [];
    const pass = (name: string): Guardrail => ({ name, check: () => ({ tripped: false }) });
    const model = (() => {
      order.push("model called");
      return final('{"city":"Pune","celsius":30}');
    }) as Parameters<typeof runAgent>[1];
    const result = await runAgent("q", model, registry, {
      output: Weather,
      guardrails: { input: [pass("a"), pass("b")], output: [pass("c")] },
      store: new SlowChecksStore(order),
    });
    order.push("returned");
    expect(result.status).toBe("done");
    expect(order).toEqual([
      "logged run.started",
      "logged a",
      "logged b",
      "model called",
      "logged model.replied",
      "logged output.checked",
      "logged c",
      "logged run.finished",
      "returned",
    ]);
  });
});

// A message a guardrail blocked never reaches the model, in a later turn either: the user's input
// an input guardrail tripped on (NVIDIA-NeMo/Guardrails #1413 forwards it with the next message),
// and the answer an output guardrail tripped on (openai-agents-python #4123 replays it next turn).
describe("what a guardrail blocked stays out of the conversation's next turn", () => {
  const pii: Guardrail = {
    name: "pii",
    check: (text) => (/\d{3}-\d{2}-\d{4}/.test(text) ? { tripped: true, reason: "an SSN" } : { tripped: false }),
  };
  const secret: Guardrail = {
    name: "secret",
    check: (text) => (text.includes("SECRET") ? { tripped: true, reason: "a secret" } : { tripped: false }),
  };

  it("an input the input guardrail tripped on is not sent with the next message, and the log replays to that", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const model = scriptedModel([final("Sunny.")]);
    const guardrails = { input: [pii] };
    const first = await runAgent("my SSN is 123-45-6789", model, registry, { guardrails, store, runId: "in" });
    expect(first.status).toBe("guardrail_tripped");
    const next = await continueAgent("in", "What is the weather?", model, registry, { guardrails, store });
    expect(next.status).toBe("done");
    expect(JSON.stringify(model.seen)).not.toContain("123-45-6789");
    expect(model.seen[0]?.map((m) => m.role)).toEqual(["system", "user"]);
    expect(JSON.stringify(next.messages)).not.toContain("123-45-6789");
    // The tripped turn's own result still shows what the user sent.
    expect(first.messages.at(-1)).toEqual({ role: "user", content: "my SSN is 123-45-6789" });
    expect(replayRun(await store.read("in"), { runId: "in" }).result).toEqual({ ...next, runId: undefined });
  });

  it("an answer the output guardrail tripped on is not shown to the model next turn, and the log replays to that", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const model = scriptedModel([final("The SECRET is 42."), final("I cannot say.")]);
    const guardrails = { output: [secret] };
    const first = await runAgent("Tell me the code.", model, registry, { guardrails, store, runId: "out" });
    expect(first).toMatchObject({ status: "guardrail_tripped", answer: null });
    const next = await continueAgent("out", "Please?", model, registry, { guardrails, store });
    expect(next).toMatchObject({ status: "done", answer: "I cannot say." });
    expect(JSON.stringify(model.seen[1])).not.toContain("SECRET");
    expect(model.seen[1]?.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(replayRun(await store.read("out"), { runId: "out" }).result).toEqual({ ...next, runId: undefined });
  });
});

describe("a typed answer beside tools", () => {
  it("a step that asks for tools is never checked as the answer, whatever text it carries", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const model = scriptedModel([
      { content: "Let me check {", toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })] },
      final('{"city":"Pune","celsius":30}'),
    ]);
    const result = await runAgent("q", model, registry, { output: Weather, store });
    expect(result).toMatchObject({ status: "done", steps: 2, output: { city: "Pune", celsius: 30 } });
    expect(runs).toEqual([["get_weather", "Pune"]]);
    const checks = (await store.read(result.runId as string)).filter((event) => event.type === "output.checked");
    expect(checks).toHaveLength(1);
  });

  it("a run its step limit stops mid-tools ends step_limit with no output, never a made-up or stale one", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel([
      asks(toolCall("c1", "get_weather", { city: "Pune" })),
      asks(toolCall("c2", "get_weather", { city: "Delhi" })),
    ]);
    const result = await runAgent("q", model, registry, { output: Weather, maxSteps: 2 });
    expect(result.status).toBe("step_limit");
    expect(result.output).toBeUndefined();
  });
});

describe("guardrails fail closed and run at once", () => {
  it("one that throws null or undefined, rejects, or returns no verdict trips, with a reason that says so", async () => {
    const { registry } = makeWeatherRegistry();
    const cases: [Guardrail["check"], string][] = [
      [
        () => {
          throw null;
        },
        "g failed: threw a non-Error value: null",
      ],
      [() => Promise.reject(undefined), "g failed: threw a non-Error value: undefined"],
      [() => undefined as unknown as GuardrailVerdict, "g returned no verdict ({ tripped: boolean })"],
      [() => ({ tripped: "no" }) as unknown as GuardrailVerdict, "g returned no verdict ({ tripped: boolean })"],
    ];
    for (const [check, reason] of cases) {
      const model = scriptedModel([final("never")]);
      const result = await runAgent("hi", model, registry, { guardrails: { input: [{ name: "g", check }] } });
      expect(result).toMatchObject({ status: "guardrail_tripped", guardrail: { name: "g", stage: "input", reason } });
      expect(model.seen).toHaveLength(0);
    }
  });

  it("one that hangs past its timeout trips, and its signal tells it to stop", async () => {
    const { registry } = makeWeatherRegistry();
    let aborted = false;
    const hangs: Guardrail = {
      name: "hangs",
      timeoutMs: 15,
      check: (_text, { signal }) =>
        new Promise(() => {
          signal.addEventListener("abort", () => {
            aborted = true;
          });
        }),
    };
    const model = scriptedModel([final("ok")]);
    const result = await runAgent("hi", model, registry, { guardrails: { output: [hangs] } });
    expect(result).toMatchObject({ status: "guardrail_tripped", answer: null, steps: 1 });
    expect(result.guardrail).toEqual({ name: "hangs", stage: "output", reason: "hangs timed out after 15 ms" });
    expect(aborted).toBe(true);
  });

  it("the guardrails of a stage run at once: each waits for the other to start, and both pass", async () => {
    const { registry } = makeWeatherRegistry();
    const started = new Set<string>();
    let release: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    const waitsForPeer = (name: string): Guardrail => ({
      name,
      // Run one after the other, the first would wait for the second forever and time out.
      timeoutMs: 2000,
      check: async () => {
        started.add(name);
        if (started.size === 2) release();
        await both;
        return { tripped: false };
      },
    });
    const result = await runAgent("hi", scriptedModel([final("ok")]), registry, {
      guardrails: { input: [waitsForPeer("a"), waitsForPeer("b")], output: [waitsForPeer("c"), waitsForPeer("d")] },
    });
    expect(result.status).toBe("done");
    expect([...started]).toEqual(["a", "b", "c", "d"]);
  });

  // The guardrail's timeout is weeks, far past the test's own: a run that waited for it would never end in time.
  it("cancelling during an output guardrail that ignores its signal ends the run cancelled at once", async () => {
    const { registry } = makeWeatherRegistry();
    const controller = new AbortController();
    const deaf: Guardrail = {
      name: "deaf",
      timeoutMs: 2 ** 31 - 1,
      check: () => {
        setTimeout(() => controller.abort(), 5);
        return new Promise(() => {});
      },
    };
    const model = scriptedModel([final("ok")]);
    const result = await runAgent("hi", model, registry, {
      guardrails: { output: [deaf] },
      signal: controller.signal,
    });
    expect(result).toMatchObject({ status: "cancelled", answer: null, steps: 1 });
  });

  it("cancelling while a Standard Schema's own async check hangs ends the run cancelled", async () => {
    const { registry } = makeWeatherRegistry();
    const controller = new AbortController();
    const hangs = Weather.refine(() => {
      setTimeout(() => controller.abort(), 5);
      return new Promise<boolean>(() => {});
    });
    const model = scriptedModel([final('{"city":"Pune","celsius":30}')]);
    const result = await runAgent("q", model, registry, { output: hangs, signal: controller.signal });
    expect(result).toMatchObject({ status: "cancelled", answer: null, steps: 1 });
    expect(result.output).toBeUndefined();
  });

  it.each([
    ["not above 0", -5],
    ["not a number", Number.NaN],
    ["past what a timer holds (it would fire at once)", 2 ** 31],
    ["text", "50"],
  ])("refuses a guardrail's timeoutMs %s before anything runs, in one line", async (_, timeoutMs) => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel([final("ok")]);
    const slow = { name: "slow", timeoutMs, check: () => after(5, { tripped: false } as const) } as Guardrail;
    const run = runAgent("hi", model, registry, { guardrails: { output: [slow] } });
    await expect(run).rejects.toThrow(
      /^guardrails\.output\[0\]\.timeoutMs must be milliseconds above 0 and at most 2147483647, or Infinity; got /,
    );
    expect(model.seen).toHaveLength(0);
  });

  it("a guardrail with timeoutMs Infinity is never timed out", async () => {
    const { registry } = makeWeatherRegistry();
    const slow: Guardrail = {
      name: "slow",
      timeoutMs: Number.POSITIVE_INFINITY,
      check: () => after(20, { tripped: false }),
    };
    const result = await runAgent("hi", scriptedModel([final("ok")]), registry, { guardrails: { input: [slow] } });
    expect(result.status).toBe("done");
  });

  it("a stage decided by one guardrail leaves no timer of another that ignores its signal to keep the process alive", async () => {
    const { registry } = makeWeatherRegistry();
    let aborted = false;
    const deaf: Guardrail = {
      name: "deaf",
      check: (_text, { signal }) => {
        signal.addEventListener("abort", () => {
          aborted = true;
        });
        return new Promise(() => {});
      },
    };
    const trips: Guardrail = { name: "trips", check: () => ({ tripped: true, reason: "no" }) };
    // Only this run's timers are counted: the process's own (other files' workers, vitest's) come and go.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const result = await runAgent("hi", scriptedModel([]), registry, { guardrails: { input: [trips, deaf] } });
      await new Promise((resolve) => setImmediate(resolve));
      expect(result.guardrail?.name).toBe("trips");
      expect(aborted).toBe(true);
      // Its 60-second timeout would otherwise still be set after the run returned.
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
