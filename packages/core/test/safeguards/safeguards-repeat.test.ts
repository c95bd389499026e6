import { describe, expect, it } from "vitest";
import {
  asks,
  contentText,
  final,
  MemoryEventStore,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  type ToolCall,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { comparable, toolMessages, traceProblem } from "../run/trace.js";

/** The refusal of a repeated call: it claims the result would not change only for an idempotent tool. */
const refusal = (name: string, times: number, idempotent = false) =>
  idempotent
    ? `ERROR: ${name} was asked for with the same arguments ${times} times in a row, so it was not run again: the result would not change. Use the result you already have, call it with different arguments, or answer.`
    : `ERROR: ${name} was asked for with the same arguments ${times} times in a row, so it was not run again. Use the results you already have, call it with different arguments, or answer; if it really must run again, say so in your answer.`;

/** The guard, on with its usual limit. */
const GUARD = { repeatLimit: 3 } as const;

/** `find` and `fail` (which throws), and `send` (which needs approval); `runs` logs every execution as `name args`. */
function tools() {
  const runs: string[] = [];
  const registry = new ToolRegistry();
  const params = { type: "object", properties: { q: { type: "string" }, page: { type: "integer" } } } as const;
  registry.register("find", "Finds.", params, (args: Record<string, unknown>) => {
    runs.push(`find ${JSON.stringify(args)}`);
    return { found: args.q ?? null };
  });
  registry.register("look", "Looks.", params, (args: Record<string, unknown>) => {
    runs.push(`look ${JSON.stringify(args)}`);
    return { seen: args.q ?? null };
  });
  registry.register(
    "read",
    "Reads.",
    params,
    (args: Record<string, unknown>) => {
      runs.push(`read ${JSON.stringify(args)}`);
      return { read: args.q ?? null };
    },
    { idempotent: true },
  );
  registry.register(
    "poll",
    "Polls.",
    params,
    () => {
      runs.push("poll");
      return { ready: false };
    },
    { repeatable: true },
  );
  registry.register("fail", "Fails.", params, () => {
    runs.push("fail");
    throw new Error("down");
  });
  registry.register(
    "send",
    "Sends.",
    params,
    () => {
      runs.push("send");
      return "sent";
    },
    { needsApproval: true },
  );
  return { registry, runs };
}

/** One call per reply, then an answer. */
function oneByOne(...calls: ToolCall[]): ModelReply[] {
  return [...calls.map((c) => asks(c)), final("done")];
}

function contents(messages: Parameters<typeof toolMessages>[0]): string[] {
  return toolMessages(messages).map((m) => contentText(m.content));
}

describe("repeated calls: the guard is off by default", () => {
  it("a long run that calls one tool 300 times with the same arguments runs it 300 times", async () => {
    const { registry, runs } = tools();
    const calls = Array.from({ length: 300 }, (_, i) => toolCall(`c${i}`, "find", { q: "next" }));
    const model = scriptedModel([...calls.slice(0, 150).map((c) => asks(c)), asks(...calls.slice(150)), final("ok")]);
    const result = await runAgent("t", model, registry, { maxSteps: 200, tokenBudget: Number.POSITIVE_INFINITY });
    expect(runs).toHaveLength(300);
    expect(contents(result.messages).every((c) => c === '{"found":"next"}')).toBe(true);
    expect(result.status).toBe("done");
  });

  it("the spec's step limit: a model that always asks for the same call has it run every time", async () => {
    const { registry, runs } = tools();
    const model = scriptedModel([1, 2, 3, 4, 5].map((i) => asks(toolCall(`c${i}`, "find", { q: "pune" }))));
    const result = await runAgent("t", model, registry, { maxSteps: 5, tokenBudget: 1_000_000 });
    expect([result.status, runs.length]).toEqual(["step_limit", 5]);
  });

  it("logs the guard as off (repeatLimit null): replay of the log refuses nothing either", async () => {
    const { registry } = tools();
    const store = new MemoryEventStore();
    const calls = [1, 2, 3].map((i) => toolCall(`c${i}`, "find", { q: "x" }));
    const result = await runAgent("t", scriptedModel(oneByOne(...calls)), registry, { store, runId: "off" });
    const log = await store.read("off");
    expect(log[0]).toMatchObject({ settings: { repeatLimit: Number.POSITIVE_INFINITY } });
    expect(replayRun(log).result).toEqual(comparable(result));
  });
});

describe("repeated calls: refused when the guard is on", () => {
  it("the third identical call in a row is not run; its observation says why; the loop goes on", async () => {
    const { registry, runs } = tools();
    const model = scriptedModel(oneByOne(...[1, 2, 3].map((i) => toolCall(`c${i}`, "find", { q: "pune" }))));
    const result = await runAgent("t", model, registry, GUARD);
    expect(runs).toEqual(['find {"q":"pune"}', 'find {"q":"pune"}']);
    expect(contents(result.messages)).toEqual(['{"found":"pune"}', '{"found":"pune"}', refusal("find", 3)]);
    expect([result.status, result.answer, result.steps]).toEqual(["done", "done", 4]);
    // The model was shown the refusal before its next call.
    expect(model.seen[3]?.at(-1)).toEqual({
      role: "tool",
      toolCallId: "c3",
      name: "find",
      content: refusal("find", 3),
      isError: true,
    });
  });

  it("says the result would not change only for a tool registered as idempotent", async () => {
    const { registry, runs } = tools();
    const model = scriptedModel(oneByOne(...[1, 2, 3].map((i) => toolCall(`r${i}`, "read", { q: "a" }))));
    const result = await runAgent("t", model, registry, GUARD);
    expect(runs).toHaveLength(2);
    expect(contents(result.messages)[2]).toBe(refusal("read", 3, true));
    expect(refusal("find", 3)).not.toContain("would not change");
  });

  it("never refuses a tool registered as repeatable: polling goes on", async () => {
    const { registry, runs } = tools();
    const calls = Array.from({ length: 6 }, (_, i) => toolCall(`p${i}`, "poll"));
    const result = await runAgent("t", scriptedModel([asks(...calls), final("ok")]), registry, {
      repeatLimit: 2,
      onRepeatedCall: "stop",
    });
    expect(runs).toHaveLength(6);
    expect(result.status).toBe("done");
  });

  it("onRepeatedCall alone turns the guard on, with the limit of 3", async () => {
    const { registry, runs } = tools();
    const calls = [1, 2, 3].map((i) => toolCall(`c${i}`, "find", { q: "x" }));
    const result = await runAgent("t", scriptedModel(oneByOne(...calls)), registry, { onRepeatedCall: "refuse" });
    expect(runs).toHaveLength(2);
    expect(contents(result.messages)[2]).toBe(refusal("find", 3));
  });

  it("ignores the order of the arguments' keys, and counts calls within one reply too; a fourth is refused again", async () => {
    const { registry, runs } = tools();
    const reply = asks(
      toolCall("a", "find", { q: "x", page: 1 }),
      toolCall("b", "find", { page: 1, q: "x" }),
      toolCall("c", "find", { q: "x", page: 1 }),
      toolCall("d", "find", { page: 1, q: "x" }),
    );
    const result = await runAgent("t", scriptedModel([reply, final("ok")]), registry, GUARD);
    expect(runs).toHaveLength(2);
    expect(contents(result.messages).slice(2)).toEqual([refusal("find", 3), refusal("find", 3)]);
    expect(traceProblem(result.messages)).toBeNull();
  });

  it("different arguments, or another tool, in between start the count over", async () => {
    const { registry, runs } = tools();
    const x = (id: string) => toolCall(id, "find", { q: "x" });
    const calls = [
      x("1"),
      x("2"),
      toolCall("3", "find", { q: "y" }),
      x("4"),
      x("5"),
      toolCall("6", "look", { q: "x" }),
    ];
    const model = scriptedModel([asks(...calls, x("7"), x("8"), x("9")), final("ok")]);
    const result = await runAgent("t", model, registry, GUARD);
    // Only the ninth is the third x in a row.
    expect(runs).toHaveLength(8);
    expect(contents(result.messages).map((c) => c.startsWith("ERROR"))).toEqual([...Array(8).fill(false), true]);
  });

  it("counts a call whatever its outcome: a tool that throws twice is not run a third time", async () => {
    const { registry, runs } = tools();
    const result = await runAgent(
      "t",
      scriptedModel(oneByOne(...[1, 2, 3].map((i) => toolCall(`f${i}`, "fail")))),
      registry,
      GUARD,
    );
    expect(runs).toEqual(["fail", "fail"]);
    expect(contents(result.messages)).toEqual([
      "ERROR: fail failed: Error: down",
      "ERROR: fail failed: Error: down",
      refusal("fail", 3),
    ]);
  });

  it("a repeated call that needs approval is refused without asking for a decision", async () => {
    const { registry, runs } = tools();
    const asked: string[] = [];
    const result = await runAgent(
      "t",
      scriptedModel(oneByOne(...[1, 2, 3].map((i) => toolCall(`s${i}`, "send")))),
      registry,
      {
        ...GUARD,
        approve: (call) => {
          asked.push(call.id);
          return { approved: true };
        },
      },
    );
    expect(asked).toEqual(["s1", "s2"]);
    expect(runs).toEqual(["send", "send"]);
    expect(contents(result.messages)[2]).toBe(refusal("send", 3));
  });

  it("arguments that arrived as text that is not JSON (rawArgs) repeat by their text", async () => {
    const { registry } = tools();
    const raw = (id: string): ToolCall => ({ id, name: "find", args: {}, rawArgs: "{q: pune" });
    const result = await runAgent(
      "t",
      scriptedModel([asks(raw("1"), raw("2"), raw("3")), final("ok")]),
      registry,
      GUARD,
    );
    const [first, , third] = contents(result.messages);
    expect(first).toMatch(/^ERROR: the arguments of 'find' are not a valid JSON object/);
    expect(third).toBe(refusal("find", 3));
  });
});

describe("repeated calls: the repeatLimit option", () => {
  it.each([2, 4, 5])("repeatLimit %i: the call runs one time less in a row, then is refused", async (limit) => {
    const { registry, runs } = tools();
    const calls = Array.from({ length: limit + 1 }, (_, i) => toolCall(`c${i}`, "find", { q: "a" }));
    const result = await runAgent("t", scriptedModel([asks(...calls), final("ok")]), registry, { repeatLimit: limit });
    expect(runs).toHaveLength(limit - 1);
    expect(contents(result.messages).slice(limit - 1)).toEqual([refusal("find", limit), refusal("find", limit)]);
  });

  it("repeatLimit Infinity never refuses", async () => {
    const { registry, runs } = tools();
    const calls = Array.from({ length: 6 }, (_, i) => toolCall(`c${i}`, "find", { q: "a" }));
    await runAgent("t", scriptedModel([asks(...calls), final("ok")]), registry, {
      repeatLimit: Number.POSITIVE_INFINITY,
    });
    expect(runs).toHaveLength(6);
  });

  it.each([0, -1, 2.5, Number.NaN])(
    "repeatLimit %s is refused with a RangeError before anything runs",
    async (limit) => {
      const { registry } = tools();
      const model = scriptedModel([final("never")]);
      await expect(runAgent("t", model, registry, { repeatLimit: limit })).rejects.toThrow(RangeError);
      expect(model.seen).toEqual([]);
    },
  );

  // Regression test; before the fix: repeatLimit 1 is accepted but behaves exactly like 2 (the first call runs, the second is refused); read
  // literally ("the same call this many times in a row is not run") it would refuse every call. It should be
  // refused like the other limits that make no sense.
  it("repeatLimit 1 is refused with a RangeError: no call could ever run", async () => {
    const { registry } = tools();
    await expect(runAgent("t", scriptedModel([final("x")]), registry, { repeatLimit: 1 })).rejects.toThrow(RangeError);
  });
});

describe('repeated calls: onRepeatedCall "stop"', () => {
  it("ends the run with status repeated_call; the repeated call and the rest of its reply get closing messages", async () => {
    const { registry, runs } = tools();
    const x = (id: string) => toolCall(id, "find", { q: "x" });
    const model = scriptedModel([asks(x("1"), x("2")), asks(x("3"), toolCall("4", "look")), final("never asked")]);
    const result = await runAgent("t", model, registry, { onRepeatedCall: "stop" });
    expect([result.status, result.answer, result.steps]).toEqual(["repeated_call", null, 2]);
    expect(model.seen).toHaveLength(2);
    expect(runs).toHaveLength(2);
    expect(result.messages.slice(-2)).toEqual([
      {
        role: "tool",
        toolCallId: "3",
        name: "find",
        content: "ERROR: find was not run to completion: the run stopped because a call was repeated.",
        isError: true,
      },
      {
        role: "tool",
        toolCallId: "4",
        name: "look",
        content: "ERROR: look was not run to completion: the run stopped because a call was repeated.",
        isError: true,
      },
    ]);
    expect(traceProblem(result.messages)).toBeNull();
  });

  it("with repeatLimit 2 it stops at the second call in a row", async () => {
    const { registry } = tools();
    const model = scriptedModel(oneByOne(toolCall("1", "find", { q: "x" }), toolCall("2", "find", { q: "x" })));
    const result = await runAgent("t", model, registry, { onRepeatedCall: "stop", repeatLimit: 2 });
    expect([result.status, result.steps]).toEqual(["repeated_call", 2]);
  });

  it("is logged: run.finished says repeated_call, replay gives the result, resume gives it back unchanged", async () => {
    const { registry } = tools();
    const store = new MemoryEventStore();
    const calls = [1, 2, 3].map((i) => toolCall(`c${i}`, "find", { q: "x" }));
    const result = await runAgent("t", scriptedModel(oneByOne(...calls)), registry, {
      onRepeatedCall: "stop",
      store,
      runId: "rep",
    });
    const log = await store.read("rep");
    expect(log.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "repeated_call", steps: 3 } });
    expect(log[0]).toMatchObject({ settings: { onRepeatedCall: "stop", repeatLimit: 3 } });
    expect(replayRun(log).result).toEqual(comparable(result));
    const resumed = await resumeAgent("rep", scriptedModel([]), registry, { store });
    expect(resumed).toEqual(result);
    expect(await store.read("rep")).toEqual(log);
  });

  it("an unknown policy is refused with a RangeError", async () => {
    const { registry } = tools();
    const options = JSON.parse('{"onRepeatedCall": "ignore"}') as { onRepeatedCall: "stop" };
    await expect(runAgent("t", scriptedModel([final("x")]), registry, options)).rejects.toThrow(RangeError);
  });
});
