import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Guardrail } from "../../src/index.js";
import { continueAgent, MemoryEventStore, replayRun, resumeAgent, runAgent, streamAgent } from "../../src/index.js";
import { final, makeWeatherRegistry, scriptedModel } from "../../src/testing.js";

const pass = (name: string, calls: string[] = []): Guardrail => ({
  name,
  check: (text) => {
    calls.push(`${name}:${text}`);
    return { tripped: false };
  },
});
const trip = (name: string, reason: string, delayMs = 0): Guardrail => ({
  name,
  check: () => new Promise((resolve) => setTimeout(() => resolve({ tripped: true, reason }), delayMs)),
});
const pii: Guardrail = {
  name: "pii",
  check: (text) => (/\d{3}-\d{2}-\d{4}/.test(text) ? { tripped: true, reason: "an SSN" } : { tripped: false }),
};

describe("guardrails", () => {
  it("an input guardrail that trips ends the run before any model call", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel([final("never")]);
    const result = await runAgent("my SSN is 123-45-6789", model, registry, { guardrails: { input: [pii] } });
    expect(result).toMatchObject({ status: "guardrail_tripped", answer: null, steps: 0 });
    expect(result.guardrail).toEqual({ name: "pii", stage: "input", reason: "an SSN" });
    expect(model.seen).toHaveLength(0);
  });

  it("does not race the model call: a slow input guardrail is waited for before the model is called", async () => {
    const { registry } = makeWeatherRegistry();
    const order: string[] = [];
    const slow: Guardrail = {
      name: "slow",
      check: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            order.push("guardrail");
            resolve({ tripped: false });
          }, 30),
        ),
    };
    const model = () => {
      order.push("model");
      return final("ok");
    };
    const stream = streamAgent("hi", model, registry, { guardrails: { input: [slow] } });
    const seen: string[] = [];
    for await (const event of stream) seen.push(event.type === "logged" ? event.event.type : event.type);
    expect(order).toEqual(["guardrail", "model"]);
    expect(seen.slice(0, 4)).toEqual(["run.started", "guardrail-started", "guardrail.checked", "step-started"]);
  });

  it("the first trip by order of declaration wins, whatever finishes first", async () => {
    const { registry } = makeWeatherRegistry();
    const guardrails = { input: [trip("first", "slow reason", 30), trip("second", "fast reason", 0)] };
    const result = await runAgent("hi", scriptedModel([]), registry, { guardrails });
    expect(result.guardrail).toEqual({ name: "first", stage: "input", reason: "slow reason" });
  });

  it("a guardrail that throws or times out trips (fails closed), its reason naming the error", async () => {
    const { registry } = makeWeatherRegistry();
    const throws: Guardrail = {
      name: "broken",
      check: () => {
        throw new RangeError("no policy");
      },
    };
    const thrown = await runAgent("hi", scriptedModel([]), registry, { guardrails: { input: [throws] } });
    expect(thrown.guardrail?.reason).toBe("broken failed: RangeError: no policy");
    const hangs: Guardrail = { name: "hangs", timeoutMs: 20, check: () => new Promise(() => {}) };
    const timed = await runAgent("hi", scriptedModel([]), registry, { guardrails: { input: [hangs] } });
    expect(timed.guardrail?.reason).toBe("hangs timed out after 20 ms");
  });

  it("a verdict that throws while it is read trips the guardrail, its reason naming the error", async () => {
    const { registry } = makeWeatherRegistry();
    const verdict = (read: () => never) => ({
      get tripped(): boolean {
        return read();
      },
    });
    const getter: Guardrail = {
      name: "getter",
      check: () =>
        verdict(() => {
          throw new TypeError("no tripped here");
        }) as unknown as { tripped: false },
    };
    const byGetter = await runAgent("hi", scriptedModel([final("never")]), registry, {
      guardrails: { input: [getter] },
    });
    expect(byGetter.status).toBe("guardrail_tripped");
    expect(byGetter.guardrail?.reason).toBe("getter failed: its verdict could not be read: TypeError: no tripped here");
    const reasonThrows: Guardrail = {
      name: "reason",
      check: () =>
        ({
          tripped: true,
          get reason(): string {
            throw null;
          },
        }) as unknown as { tripped: true; reason: string },
    };
    const byReason = await runAgent("hi", scriptedModel([final("never")]), registry, {
      guardrails: { output: [reasonThrows] },
    });
    expect(byReason.status).toBe("guardrail_tripped");
    expect(byReason.answer).toBeNull();
    expect(byReason.guardrail?.reason).toBe(
      "reason failed: its verdict could not be read: threw a non-Error value: null",
    );
    const proxy: Guardrail = {
      name: "proxy",
      check: () =>
        new Proxy(
          {},
          {
            get() {
              throw new Error("trap");
            },
          },
        ) as { tripped: false },
    };
    const byProxy = await runAgent("hi", scriptedModel([final("never")]), registry, { guardrails: { input: [proxy] } });
    // Awaiting the verdict reads its `then` first: the proxy throws there, as a check that threw.
    expect(byProxy.status).toBe("guardrail_tripped");
    expect(byProxy.guardrail?.reason).toBe("proxy failed: Error: trap");
  });

  it("output guardrails check the answer after the output check and before done", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const policy: Guardrail = {
      name: "policy",
      check: (text) => (text.includes("secret") ? { tripped: true, reason: "leaks a secret" } : { tripped: false }),
    };
    const output = z.object({ text: z.string() });
    const model = scriptedModel([final("nope"), final('{"text":"the secret"}')]);
    const result = await runAgent("q", model, registry, { output, guardrails: { output: [policy] }, store });
    expect(result).toMatchObject({ status: "guardrail_tripped", answer: null, steps: 2 });
    expect(result.output).toBeUndefined();
    expect(result.guardrail).toEqual({ name: "policy", stage: "output", reason: "leaks a secret" });
    const types = (await store.read(result.runId as string)).map((e) => e.type);
    expect(types).toEqual([
      "run.started",
      "model.replied",
      "output.checked",
      "model.replied",
      "output.checked",
      "guardrail.checked",
      "run.finished",
    ]);
  });

  it("replay and resume never call a guardrail again; continueAgent checks the new message", async () => {
    const { registry } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const calls: string[] = [];
    const guardrails = { input: [pass("in", calls)], output: [pass("out", calls)] };
    const model = scriptedModel([final("one"), final("two")]);
    const result = await runAgent("hi", model, registry, { guardrails, store, runId: "g" });
    expect(calls).toEqual(["in:hi", "out:one"]);
    expect(replayRun(await store.read("g"), { runId: "g" }).result?.status).toBe("done");
    expect((await resumeAgent("g", model, registry, { store, guardrails })).answer).toBe(result.answer);
    expect(calls).toHaveLength(2);
    await continueAgent("g", "and now?", model, registry, { store, guardrails });
    expect(calls).toEqual(["in:hi", "out:one", "in:and now?", "out:two"]);
  });

  it("cancelling during a guardrail ends the run cancelled and aborts the guardrail's signal", async () => {
    const { registry } = makeWeatherRegistry();
    const controller = new AbortController();
    let aborted = false;
    const waits: Guardrail = {
      name: "waits",
      check: (_text, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            aborted = true;
            resolve({ tripped: false });
          });
          controller.abort();
        }),
    };
    const model = scriptedModel([final("never")]);
    const result = await runAgent("hi", model, registry, { guardrails: { input: [waits] }, signal: controller.signal });
    expect(result.status).toBe("cancelled");
    expect(aborted).toBe(true);
    expect(model.seen).toHaveLength(0);
  });

  it("refuses a guardrail without a name or check before anything runs", async () => {
    const { registry } = makeWeatherRegistry();
    const bad = { input: [{ name: "x" } as unknown as Guardrail] };
    await expect(runAgent("hi", scriptedModel([]), registry, { guardrails: bad })).rejects.toThrow(
      "guardrails.input[0] must have a name and a check function",
    );
  });
});
