import { describe, expect, it } from "vitest";
import {
  asks,
  EventLogError,
  final,
  forkRun,
  MemoryEventStore,
  type Model,
  ModelError,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { parseEventLog } from "../../src/store.js";
import { observationOf, toolMessages, traceProblem } from "../run/trace.js";

// Holes an attack on the kernel found: each test failed before its fix.

/** `pay` needs approval and records every payment it really makes. */
function payments() {
  const paid: string[] = [];
  const registry = new ToolRegistry();
  registry.register(
    "pay",
    "Pay someone.",
    { type: "object", properties: { to: { type: "string" }, amount: { type: "number" } }, required: ["to", "amount"] },
    ({ to, amount }: { to: string; amount: number }) => {
      paid.push(`${to}: $${amount}`);
      return { paid: amount };
    },
    { needsApproval: true },
  );
  return { registry, paid };
}

describe("approval belongs to a call, not to an id", () => {
  it("a later reply reusing an approved call's id needs its own decision, also after resume", async () => {
    const { registry, paid } = payments();
    const store = new MemoryEventStore();
    const script = [
      asks(toolCall("call_0", "pay", { to: "alice", amount: 10 })),
      asks(toolCall("call_0", "pay", { to: "mallory", amount: 10_000 })),
      final("Paid."),
    ];
    const paused = await runAgent("Pay alice $10.", scriptedModel(script), registry, { store, runId: "pay" });
    expect(paused.pendingApprovals?.map((call) => call.args.to)).toEqual(["alice"]);
    // The user approves alice's $10; mallory's call comes later, reusing the id.
    const again = await resumeAgent("pay", scriptedModel(script.slice(1)), registry, {
      store,
      decisions: { call_0: { approved: true } },
    });
    expect(paid).toEqual(["alice: $10"]);
    expect(again.status).toBe("awaiting_approval");
    expect(again.pendingApprovals).toHaveLength(1);
    expect(again.pendingApprovals?.[0]?.args).toEqual({ to: "mallory", amount: 10_000 });
    // The reused id was made unique when the reply came in, so it names that call alone.
    expect(again.pendingApprovals?.[0]?.id).not.toBe("call_0");
    expect(traceProblem(again.messages, true)).toBeNull();
  });

  it("two calls sharing one id in one reply get ids of their own: one decision approves one of them", async () => {
    const { registry, paid } = payments();
    const store = new MemoryEventStore();
    const reply = asks(
      toolCall("x", "pay", { to: "alice", amount: 10 }),
      toolCall("x", "pay", { to: "mallory", amount: 1 }),
    );
    const paused = await runAgent("Pay.", scriptedModel([reply, final("ok")]), registry, { store, runId: "twin" });
    const ids = paused.pendingApprovals?.map((call) => call.id) ?? [];
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(ids[0]).toBe("x");
    const done = await resumeAgent("twin", scriptedModel([final("ok")]), registry, {
      store,
      decisions: { x: { approved: true }, [ids[1] as string]: { approved: false } },
    });
    expect(paid).toEqual(["alice: $10"]);
    expect(done.status).toBe("done");
    // Every call is paired with its own tool message, by its own id.
    expect(traceProblem(done.messages)).toBeNull();
    expect(toolMessages(done.messages).map((m) => m.toolCallId)).toEqual(ids);
  });

  it("an approver is asked once per call, however the model names the calls", async () => {
    const { registry } = payments();
    const asked: string[] = [];
    await runAgent(
      "Pay.",
      scriptedModel([
        asks(toolCall("a", "pay", { to: "x", amount: 1 }), toolCall("a", "pay", { to: "y", amount: 2 })),
        asks(toolCall("a", "pay", { to: "z", amount: 3 })),
        final("ok"),
      ]),
      registry,
      {
        approve: (call) => {
          asked.push(String(call.args.to));
          return { approved: true };
        },
      },
    );
    expect(asked).toEqual(["x", "y", "z"]);
  });
});

describe("what is logged is what ran", () => {
  it("a reply read through a getter is read once: the log and the tool see the same arguments", async () => {
    const ran: string[] = [];
    const registry = new ToolRegistry();
    const schema = { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as const;
    registry.register("greet", "Greet.", schema, ({ name }) => {
      ran.push(name);
      return "hi";
    });
    let reads = 0;
    const args = {
      get name() {
        reads += 1;
        return reads === 1 ? "alice" : "oscar";
      },
    };
    const store = new MemoryEventStore();
    const model = scriptedModel([{ content: "", toolCalls: [{ id: "g", name: "greet", args }] }, final("done")]);
    await runAgent("Greet.", model, registry, { store, runId: "getter" });
    const logged = (await store.read("getter")).find((e) => e.type === "model.replied");
    expect(logged?.type === "model.replied" && logged.reply.toolCalls[0]?.args).toEqual({ name: "alice" });
    expect(ran).toEqual(["alice"]);
  });

  it("a -0 in the arguments is the 0 the log holds: the live trace and its replay are the same", async () => {
    const seen: number[] = [];
    const registry = new ToolRegistry();
    registry.register(
      "n",
      "N.",
      { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      ({ n }) => {
        seen.push(n);
        return "ok";
      },
    );
    const store = new MemoryEventStore();
    const model = scriptedModel([asks(toolCall("z", "n", { n: -0 })), final("done")]);
    const live = await runAgent("Zero.", model, registry, { store, runId: "zero" });
    expect(Object.is(seen[0], 0)).toBe(true);
    expect(replayRun(await store.read("zero")).result?.messages).toStrictEqual(live.messages);
  });

  it("a reply whose toJSON returns something else is judged by what JSON makes of it", async () => {
    const registry = new ToolRegistry();
    registry.register("t", "T.", { type: "object" }, () => "ok");
    const args = { toJSON: () => "not an object" };
    const model: Model = () => ({ content: "", toolCalls: [{ id: "a", name: "t", args }] });
    await expect(runAgent("x", model, registry)).rejects.toThrow(
      /model call 1 failed: the model returned an invalid reply: reply\.toolCalls\[0\]\.args must be an object/,
    );
  });

  it.each([
    [
      "a getter that throws",
      {
        get content(): string {
          throw new Error("boom");
        },
        toolCalls: [],
      },
    ],
    [
      "a Proxy that throws",
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error("trap");
          },
        },
      ),
    ],
    ["a BigInt", { content: "", toolCalls: [], usage: { inputTokens: 1n, outputTokens: 1 } }],
  ])("%s in a reply is a ModelError, never a raw error", async (_label, reply) => {
    const registry = new ToolRegistry();
    const error = await runAgent("x", () => reply as never, registry).catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).message).toMatch(/^model call 1 failed: the model returned an invalid reply: /);
  });
});

describe("arguments nested deep", () => {
  const deep = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = {};
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };

  it("a live run rejects with a ModelError that says how deep, not a RangeError", async () => {
    const registry = new ToolRegistry();
    registry.register("t", "T.", { type: "object" }, () => "ok");
    const model = scriptedModel([asks(toolCall("a", "t", deep(3000)))]);
    const error = await runAgent("x", model, registry).catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/args nest deeper than 64 levels/);
  });

  it("a log holding such a reply is refused with an EventLogError naming run and position", async () => {
    const store = new MemoryEventStore();
    const registry = new ToolRegistry();
    registry.register("t", "T.", { type: "object" }, () => "ok");
    await runAgent("x", scriptedModel([final("ok")]), registry, { store, runId: "deep" });
    const values = JSON.parse(JSON.stringify(await store.read("deep"))) as Record<string, unknown>[];
    const line = `{"seq":1,"at":"x","type":"model.replied","reply":{"content":"","toolCalls":[{"id":"a","name":"t","args":${'{"a":'.repeat(3000)}{}${"}".repeat(3000)}}]}}`;
    values.splice(1, values.length - 1, JSON.parse(line) as Record<string, unknown>);
    expect(() => parseEventLog("deep", values)).toThrow(EventLogError);
    expect(() => parseEventLog("deep", values)).toThrow(/run 'deep': event 1 .*args nest deeper than 64 levels/);
  });
});

describe("replay refuses what does not fit", () => {
  async function twoCalls() {
    const registry = new ToolRegistry();
    registry.register("a", "A.", { type: "object" }, () => "a");
    registry.register("b", "B.", { type: "object" }, () => "b", { needsApproval: true });
    const store = new MemoryEventStore();
    await runAgent("x", scriptedModel([asks(toolCall("c1", "a"), toolCall("c2", "b")), final("ok")]), registry, {
      store,
      runId: "fit",
      approve: () => ({ approved: true }),
      toolConcurrency: 1,
    });
    return store.read("fit");
  }

  it("a tool.started that names another tool than its call's", async () => {
    const events = await twoCalls();
    const at = events.findIndex((e) => e.type === "tool.started");
    const altered = events.map((e, i) => (i === at ? { ...e, name: "b" } : e));
    expect(() => replayRun(altered, { runId: "fit" })).toThrow(
      /event 2 \(tool.started\) names the tool 'b', but call 'c1' is to 'a'/,
    );
  });

  it("a decision for a call that does not exist, and a second decision for one call", async () => {
    const events = await twoCalls();
    const at = events.findIndex((e) => e.type === "approval.decided");
    const stray = { ...events[at], callId: "nobody" } as (typeof events)[number];
    const withStray = [...events.slice(0, at), stray, ...events.slice(at)].map((e, seq) => ({ ...e, seq }));
    expect(() => replayRun(withStray, { runId: "fit" })).toThrow(/approval.decided\) does not fit the state/);
    const twice = [...events.slice(0, at + 1), events[at], ...events.slice(at + 1)].map((e, seq) => ({ ...e, seq }));
    expect(() => replayRun(twice as typeof events, { runId: "fit" })).toThrow(
      /approval.decided\) does not fit the state/,
    );
  });

  it("a run.finished outcome with its keys in another order is read as the same outcome", async () => {
    const events = await twoCalls();
    const last = events.at(-1);
    if (last?.type !== "run.finished") throw new Error("no end");
    const { status, answer, steps, tokens } = last.outcome;
    const reordered = [...events.slice(0, -1), { ...last, outcome: { tokens, steps, answer, status } }];
    expect(replayRun(reordered, { runId: "fit" }).result?.status).toBe("done");
  });
});

describe("silent damage is caught by the hash chain", () => {
  async function log() {
    const registry = new ToolRegistry();
    registry.register("t", "T.", { type: "object" }, () => ({ balance: 100 }));
    const store = new MemoryEventStore();
    await runAgent("x", scriptedModel([asks(toolCall("c", "t")), final("ok")]), registry, { store, runId: "h" });
    await runAgent("x", scriptedModel([asks(toolCall("c", "t")), final("ok")]), registry, { store, runId: "other" });
    return { h: await store.read("h"), other: await store.read("other") };
  }
  const values = (events: readonly unknown[]) => JSON.parse(JSON.stringify(events)) as Record<string, unknown>[];

  it("a same-length byte flip inside a tool result", async () => {
    const { h } = await log();
    const damaged = values(h).map((event) =>
      event.type === "tool.finished" ? { ...event, content: String(event.content).replace("100", "900") } : event,
    );
    expect(() => parseEventLog("h", damaged)).toThrow(/run 'h': event 3 does not match its hash/);
  });

  it("a line copied from another run's log, even at its own position", async () => {
    const { h, other } = await log();
    const damaged = values(h);
    damaged[3] = values(other)[3] as Record<string, unknown>;
    const same = (event: unknown) => JSON.stringify(event).replace(/"at":"[^"]+"|"hash":"\w+"/g, "");
    expect(same(damaged[3])).toBe(same(values(h)[3]));
    expect(() => parseEventLog("h", damaged)).toThrow(/event 3 does not match its hash/);
  });

  it("an event dropped from the middle, or the hash removed", async () => {
    const { h } = await log();
    const dropped = values(h)
      .filter((_, i) => i !== 2)
      .map((event, seq) => ({ ...event, seq }));
    expect(() => parseEventLog("h", dropped)).toThrow(/event 2 does not match its hash/);
    const bare = values(h).map(({ hash: _hash, ...event }) => event);
    expect(() => parseEventLog("h", bare)).toThrow(/event 0 has no hash/);
  });
});

describe("forkRun checks its limits as runAgent does", () => {
  it.each([
    [{ maxSteps: -1 }, RangeError],
    [{ maxSteps: Number.NaN }, RangeError],
    [{ maxSteps: 2.5 }, RangeError],
    [{ maxSteps: "9" }, TypeError],
    [{ tokenBudget: -5 }, RangeError],
    [{ tokenBudget: Number.NaN }, RangeError],
    [{ keep: 0 }, RangeError],
  ])("%o is refused, and nothing is written", async (options, kind) => {
    const store = new MemoryEventStore();
    const registry = new ToolRegistry();
    await runAgent("x", scriptedModel([final("ok")]), registry, { store, runId: "r" });
    await expect(forkRun(store, "r", { ...(options as object), runId: "f" })).rejects.toThrow(kind);
    expect(await store.read("f")).toEqual([]);
  });
});

describe("never write a log your own reader refuses", () => {
  it.each([
    ["tokenBudget as a string", { tokenBudget: "5000" }, TypeError],
    ["system as a number", { system: 5 }, TypeError],
    ["maxSteps as a string", { maxSteps: "8" }, TypeError],
    ["toolConcurrency 0", { toolConcurrency: 0 }, RangeError],
    [
      "history that is not a conversation",
      { history: [{ role: "tool", toolCallId: "x", name: "t", content: "" }] },
      TypeError,
    ],
  ])("%s is refused before anything is logged", async (_label, options, kind) => {
    const store = new MemoryEventStore();
    const model = scriptedModel([final("ok")]);
    await expect(
      runAgent("x", model, new ToolRegistry(), { ...(options as object), store, runId: "r" }),
    ).rejects.toThrow(kind);
    expect(await store.read("r")).toEqual([]);
    expect(model.seen).toEqual([]);
  });

  it.each([
    ["a null reason", { approved: false, reason: null }],
    ["a number reason", { approved: true, reason: 5 }],
    ["an object reason", { approved: true, reason: {} }],
    ["approved as a string", { approved: "yes" }],
  ])("an approver's decision with %s fails the run clearly, and the log stays readable", async (_label, decision) => {
    const { registry, paid } = payments();
    const store = new MemoryEventStore();
    const run = runAgent(
      "Pay.",
      scriptedModel([asks(toolCall("p", "pay", { to: "a", amount: 1 })), final("ok")]),
      registry,
      {
        store,
        runId: "d",
        approve: () => decision as never,
      },
    );
    await expect(run).rejects.toThrow(
      /the approver's decision on call 'p' must be \{ approved: boolean, reason\?: string \}/,
    );
    expect(paid).toEqual([]);
    expect(replayRun(await store.read("d")).result).toBeNull();
  });

  it("an approver that returns null gives no decision: the run pauses", async () => {
    const { registry, paid } = payments();
    const result = await runAgent(
      "Pay.",
      scriptedModel([asks(toolCall("p", "pay", { to: "a", amount: 1 }))]),
      registry,
      {
        approve: () => null,
      },
    );
    expect(result.status).toBe("awaiting_approval");
    expect(paid).toEqual([]);
  });
});

describe("an overrun of the budget is shown, not hidden", () => {
  it("provider usage past the budget ends done, with tokensOverBudget in the result and the log", async () => {
    const registry = new ToolRegistry();
    const store = new MemoryEventStore();
    const model = scriptedModel([{ content: "Done.", toolCalls: [], usage: { inputTokens: 9000, outputTokens: 900 } }]);
    const result = await runAgent("x", model, registry, { tokenBudget: 1000, store, runId: "over" });
    expect([result.status, result.tokens, result.tokensOverBudget]).toEqual(["done", 9900, 8900]);
    const log = await store.read("over");
    expect(log.at(-1)).toMatchObject({ type: "run.finished", outcome: { tokens: 9900, tokensOverBudget: 8900 } });
    expect(replayRun(log).result?.tokensOverBudget).toBe(8900);
  });

  it("a run within its budget has no tokensOverBudget", async () => {
    const result = await runAgent("x", scriptedModel([final("ok")]), new ToolRegistry());
    expect("tokensOverBudget" in result).toBe(false);
  });
});

describe("many calls in one reply", () => {
  it("20,000 identical calls with the guard on are planned at once: the machine takes a handful of steps", async () => {
    const registry = new ToolRegistry();
    let runs = 0;
    registry.register("roll", "Roll a die.", { type: "object" }, () => ++runs);
    const calls = Array.from({ length: 20_000 }, (_, i) => toolCall(`r${i}`, "roll"));
    let microsteps = 0;
    const result = await runAgent("x", scriptedModel([asks(...calls), final("ok")]), registry, {
      repeatLimit: 3,
      tokenBudget: Number.POSITIVE_INFINITY,
      inspect: (event) => {
        if (event.type === "@xstate.microstep") microsteps += 1;
      },
    });
    expect(runs).toBe(2);
    expect(toolMessages(result.messages)).toHaveLength(20_000);
    expect(observationOf(result.messages, "r19999")).toMatch(
      /^ERROR: roll was asked for with the same arguments 3 times/,
    );
    // Two calls run; every refusal is decided when the reply comes in, not in a step of its own.
    expect(microsteps).toBeLessThan(20);
  });
});
