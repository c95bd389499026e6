import { final, type Guardrail, MemoryEventStore, scriptedModel, ToolRegistry } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { inMemory, ms, only, shape, trees } from "./in-memory.js";

const celsius = {
  type: "object",
  properties: { celsius: { type: "number" } },
  required: ["celsius"],
  additionalProperties: false,
} as const;

/** A run asked for a typed answer, whose model answers in prose once before it answers in JSON. */
async function typedRun(captureContent: boolean) {
  const memory = inMemory({ captureContent });
  const store = new MemoryEventStore();
  const model = scriptedModel([final("It is 30 degrees."), final('{"celsius":30}')]);
  const result = await memory.telemetry.runAgent("How hot is Pune?", model, new ToolRegistry(), {
    store,
    runId: "typed",
    output: celsius,
  });
  return { ...memory, result, events: await store.read("typed") };
}

describe("a typed answer", () => {
  it("puts gen_ai.output.type json on the turn's span and on each model call's, and each check of the answer as an event", async () => {
    const { spans, result } = await typedRun(false);
    expect(result.output).toEqual({ celsius: 30 });
    const root = only(spans(), "invoke_agent");
    expect(root.attributes["gen_ai.output.type"]).toBe("json");
    const chats = spans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats.map((span) => span.attributes["gen_ai.output.type"])).toEqual(["json", "json"]);
    expect(root.events.map((event) => [event.name, event.attributes])).toEqual([
      ["agentloop.output.checked", { "agentloop.output.valid": false }],
      ["agentloop.output.checked", { "agentloop.output.valid": true }],
    ]);
  });

  it("says why an answer was refused only when content is recorded, and gives the same spans from the log", async () => {
    for (const captureContent of [false, true]) {
      const { telemetry, spans, reset, events } = await typedRun(captureContent);
      const [refused] = only(spans(), "invoke_agent").events;
      expect(refused?.attributes?.["agentloop.output.problem"] !== undefined).toBe(captureContent);
      const live = trees(spans());
      reset();
      telemetry.spansFromLog("typed", events);
      expect(trees(spans())).toEqual(live);
    }
  });

  it("leaves gen_ai.output.type off a turn that asks for free text", async () => {
    const { telemetry, spans } = inMemory();
    await telemetry.runAgent("Hi", scriptedModel([final("Hello.")]), new ToolRegistry());
    for (const span of spans()) expect(span.attributes).not.toHaveProperty("gen_ai.output.type");
  });
});

const passes = (name: string, delayMs: number): Guardrail => ({
  name,
  check: () => new Promise((resolve) => setTimeout(() => resolve({ tripped: false }), delayMs)),
});
const policy: Guardrail = {
  name: "policy",
  check: (text) => (text.includes("secret") ? { tripped: true, reason: "tells a secret" } : { tripped: false }),
};
const broken: Guardrail = {
  name: "broken",
  check: () => {
    throw new Error("classifier down");
  },
};
const stuck: Guardrail = { name: "stuck", check: () => new Promise(() => {}), timeoutMs: 10 };

/** A run whose two input guardrails pass and whose output guardrail trips the answer. */
async function guardedRun(captureContent: boolean, output: readonly Guardrail[] = [policy]) {
  const memory = inMemory({ captureContent });
  const store = new MemoryEventStore();
  const model = scriptedModel([final("The secret is 42.")]);
  const result = await memory.telemetry.runAgent("Tell me.", model, new ToolRegistry(), {
    store,
    runId: "guarded",
    guardrails: { input: [passes("pii", 30), passes("topic", 5)], output },
  });
  return { ...memory, result, events: await store.read("guarded") };
}

describe("guardrails", () => {
  it("are a span each under the turn's, from the check's start to its verdict: stage, order, verdict", async () => {
    const { spans, result } = await guardedRun(false);
    expect(result.status).toBe("guardrail_tripped");
    // Both input guardrails start at once: ordered by stage, then by order of declaration.
    const key = (span: { attributes: Record<string, unknown> }) =>
      `${span.attributes["agentloop.guardrail.stage"]} ${span.attributes["agentloop.guardrail.index"]}`;
    const guardrails = shape(spans())
      .filter((span) => span.name.startsWith("guardrail "))
      .sort((a, b) => key(a).localeCompare(key(b)));
    const verdict = (stage: string, name: string, index: number, tripped: boolean) => ({
      name: `guardrail ${name}`,
      kind: 0,
      parent: "invoke_agent",
      attributes: {
        "gen_ai.conversation.id": "guarded",
        "agentloop.guardrail.stage": stage,
        "agentloop.guardrail.name": name,
        "agentloop.guardrail.index": index,
        "agentloop.guardrail.tripped": tripped,
      },
      status: "unset",
      events: [],
    });
    expect(guardrails).toEqual([
      verdict("input", "pii", 0, false),
      verdict("input", "topic", 1, false),
      verdict("output", "policy", 0, true),
    ]);
    const pii = only(spans(), "guardrail pii");
    expect(ms(pii.endTime) - ms(pii.startTime)).toBeGreaterThanOrEqual(25);
    // The input guardrails ran before the model call, the output guardrail after it.
    const chat = only(spans(), "chat gpt-4.1");
    expect(ms(pii.endTime)).toBeLessThanOrEqual(ms(chat.startTime) + 1);
    expect(ms(only(spans(), "guardrail policy").startTime)).toBeGreaterThanOrEqual(ms(chat.endTime) - 1);
    expect(only(spans(), "invoke_agent").attributes["agentloop.status"]).toBe("guardrail_tripped");
  });

  it("give the reason of a trip only when content is recorded", async () => {
    const { spans } = await guardedRun(true);
    expect(only(spans(), "guardrail policy").attributes["agentloop.guardrail.reason"]).toBe("tells a secret");
    expect(only(spans(), "guardrail pii").attributes).not.toHaveProperty("agentloop.guardrail.reason");
  });

  it("mark a guardrail that threw or timed out (and so tripped) with the error status and error.type", async () => {
    for (const [guardrail, type] of [
      [broken, "guardrail_error"],
      [stuck, "timeout"],
    ] as const) {
      const { spans, result } = await guardedRun(false, [guardrail]);
      expect(result.status).toBe("guardrail_tripped");
      const span = only(spans(), `guardrail ${guardrail.name}`);
      expect(span.attributes["error.type"]).toBe(type);
      expect(span.attributes["agentloop.guardrail.tripped"]).toBe(true);
      expect(span.status).toEqual({ code: 2 });
    }
  });

  it("are the same spans from the run's log", async () => {
    for (const captureContent of [false, true]) {
      for (const output of [[policy], [broken], [stuck]]) {
        const { telemetry, spans, reset, events } = await guardedRun(captureContent, output);
        const live = trees(spans());
        reset();
        telemetry.spansFromLog("guarded", events);
        expect(trees(spans())).toEqual(live);
      }
    }
  });
});

describe("a conversation's next turn", () => {
  it("carries gen_ai.output.type when that turn asks for a typed answer, live and from the log", async () => {
    const { telemetry, spans, reset } = inMemory();
    const store = new MemoryEventStore();
    const model = scriptedModel([final("Hello."), final('{"celsius":30}')]);
    await telemetry.runAgent("Hi", model, new ToolRegistry(), { store, runId: "chat" });
    await telemetry.continueAgent("chat", "How hot is Pune?", model, new ToolRegistry(), { store, output: celsius });
    const types = () =>
      spans()
        .filter((span) => span.name === "invoke_agent")
        .map((span) => span.attributes["gen_ai.output.type"]);
    expect(types()).toEqual([undefined, "json"]);
    const live = trees(spans());
    reset();
    telemetry.spansFromLog("chat", await store.read("chat"));
    expect(trees(spans())).toEqual(live);
  });
});
