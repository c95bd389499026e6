import { describe, expect, it } from "vitest";
import {
  asks,
  DEFAULT_REPEAT_LIMIT,
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
} from "../src/index.js";
import { comparable, toolMessages, traceProblem } from "./trace.js";

const refusal = (name: string, times: number) =>
  `ERROR: ${name} was asked for with the same arguments ${times} times in a row, so it was not run again: the result would not change. Use the result you already have, call it with different arguments, or answer.`;

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
  return toolMessages(messages).map((m) => m.content);
}

describe("repeated calls: refused by default", () => {
  it("the third identical call in a row is not run; its observation says why; the loop goes on", async () => {
    const { registry, runs } = tools();
    const model = scriptedModel(oneByOne(...[1, 2, 3].map((i) => toolCall(`c${i}`, "find", { q: "pune" }))));
    const result = await runAgent("t", model, registry);
    expect(DEFAULT_REPEAT_LIMIT).toBe(3);
    expect(runs).toEqual(['find {"q":"pune"}', 'find {"q":"pune"}']);
    expect(contents(result.messages)).toEqual(['{"found":"pune"}', '{"found":"pune"}', refusal("find", 3)]);
    expect([result.status, result.answer, result.steps]).toEqual(["done", "done", 4]);
    // The model was shown the refusal before its next call.
    expect(model.seen[3]?.at(-1)).toEqual({
      role: "tool",
      toolCallId: "c3",
      name: "find",
      content: refusal("find", 3),
    });
  });

  it("ignores the order of the arguments' keys, and counts calls within one reply too; a fourth is refused again", async () => {
    const { registry, runs } = tools();
    const reply = asks(
      toolCall("a", "find", { q: "x", page: 1 }),
      toolCall("b", "find", { page: 1, q: "x" }),
      toolCall("c", "find", { q: "x", page: 1 }),
      toolCall("d", "find", { page: 1, q: "x" }),
    );
    const result = await runAgent("t", scriptedModel([reply, final("ok")]), registry);
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
    const result = await runAgent("t", scriptedModel([asks(...calls, x("7"), x("8"), x("9")), final("ok")]), registry);
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
    const result = await runAgent("t", scriptedModel([asks(raw("1"), raw("2"), raw("3")), final("ok")]), registry);
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
      },
      {
        role: "tool",
        toolCallId: "4",
        name: "look",
        content: "ERROR: look was not run to completion: the run stopped because a call was repeated.",
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
