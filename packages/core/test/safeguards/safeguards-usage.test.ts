import { describe, expect, it } from "vitest";
import {
  type AgentResult,
  asks,
  countTokens,
  final,
  MemoryEventStore,
  type Message,
  ModelError,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { DEFAULT_SYSTEM, type ModelWithLimits } from "../../src/machine.js";
import { comparable } from "../run/trace.js";

function tools() {
  const registry = new ToolRegistry();
  registry.register("lookup", "Looks up.", { type: "object" }, () => "found");
  registry.register("send", "Sends.", { type: "object" }, () => "sent", { needsApproval: true });
  return registry;
}

const first: Message[] = [
  { role: "system", content: DEFAULT_SYSTEM },
  { role: "user", content: "t" },
];

/** What the first call's prompt costs: the specs and the first two messages. */
function firstPrompt(registry: ToolRegistry): number {
  return countTokens(registry.specs()) + countTokens(first);
}

function assistantOf(reply: ModelReply): Message {
  return { role: "assistant", content: reply.content, toolCalls: reply.toolCalls };
}

function withUsage(reply: ModelReply, inputTokens: number, outputTokens: number): ModelReply {
  return { ...reply, usage: { inputTokens, outputTokens } };
}

describe("real token usage", () => {
  it("a reply with usage counts the provider's numbers for that call; one without counts the estimate", async () => {
    const registry = tools();
    const model = scriptedModel([withUsage(asks(toolCall("l", "lookup")), 100, 7), final("done")]);
    const result = await runAgent("t", model, registry);
    const second = countTokens(registry.specs()) + countTokens(model.seen[1]) + countTokens(assistantOf(final("done")));
    expect(result.tokens).toBe(107 + second);
    // Zero is a count too, not a missing one.
    const free = await runAgent("t", scriptedModel([withUsage(final("free"), 0, 0)]), registry);
    expect(free.tokens).toBe(0);
  });

  it("the provider's numbers decide the budget: a reply that cost more than estimated stops the next call", async () => {
    const registry = tools();
    const script = (usage: boolean) => {
      const ask = asks(toolCall("l", "lookup"));
      return [usage ? withUsage(ask, 3000, 990) : ask, final("done")];
    };
    const estimated = await runAgent("t", scriptedModel(script(false)), registry, { tokenBudget: 4000 });
    expect(estimated.status).toBe("done");
    const counted = await runAgent("t", scriptedModel(script(true)), registry, { tokenBudget: 4000 });
    expect([counted.status, counted.steps, counted.tokens]).toEqual(["token_budget", 1, 3990]);
  });

  it("usage is logged with the reply, so replay and resume count it the same way", async () => {
    const registry = tools();
    const store = new MemoryEventStore();
    const model = scriptedModel([withUsage(asks(toolCall("s", "send")), 50, 5), withUsage(final("ok"), 80, 2)]);
    const paused = await runAgent("t", model, registry, { store, runId: "u" });
    expect([paused.status, paused.tokens]).toEqual(["awaiting_approval", 55]);
    const log = await store.read("u");
    expect(log.find((e) => e.type === "model.replied")).toMatchObject({
      reply: { usage: { inputTokens: 50, outputTokens: 5 } },
    });
    expect(replayRun(log).context.tokens).toBe(55);
    const done = await resumeAgent("u", scriptedModel([withUsage(final("ok"), 80, 2)]), registry, {
      store,
      decisions: { s: { approved: true } },
    });
    expect(done.tokens).toBe(137);
    expect(replayRun(await store.read("u")).result).toEqual(comparable(done));
  });

  it.each([{ inputTokens: -1, outputTokens: 0 }, { inputTokens: 1.5, outputTokens: 0 }, { inputTokens: 1 }, "12"])(
    "usage %j is a broken reply: ModelError",
    async (usage) => {
      const model: ModelWithLimits = () => ({ content: "x", toolCalls: [], usage }) as unknown as ModelReply;
      await expect(runAgent("t", model, tools())).rejects.toThrow(ModelError);
    },
  );
});

describe("the reply reserve", () => {
  it("a call is made only if the prompt plus the reserve fit: one token short and the model is never called", async () => {
    const registry = tools();
    const need = firstPrompt(registry) + 50;
    const fits = scriptedModel([final("ok")]);
    expect((await runAgent("t", fits, registry, { tokenBudget: need, replyReserve: 50 })).status).toBe("done");
    const short = scriptedModel([final("ok")]);
    const stopped = await runAgent("t", short, registry, { tokenBudget: need - 1, replyReserve: 50 });
    expect([stopped.status, stopped.steps, stopped.tokens]).toEqual(["token_budget", 0, 0]);
    expect(short.seen).toEqual([]);
  });

  it("stops the call that could overspend: without a reserve a long answer passes the budget, with one it is never asked for", async () => {
    const registry = tools();
    const long = final("x".repeat(800));
    const budget = firstPrompt(registry) + 10;
    const over = await runAgent("t", scriptedModel([long]), registry, { tokenBudget: budget });
    expect(over.status).toBe("done");
    expect(over.tokens).toBeGreaterThan(budget);
    const model = scriptedModel([long]);
    const guarded = await runAgent("t", model, registry, {
      tokenBudget: budget,
      replyReserve: countTokens(assistantOf(long)),
    });
    expect([guarded.status, guarded.tokens]).toEqual(["token_budget", 0]);
    expect(model.seen).toEqual([]);
  });

  it("defaults to 0, or to the model's maxReplyTokens; an explicit replyReserve wins, even 0; it is logged", async () => {
    const registry = tools();
    const budget = firstPrompt(registry) + 100;
    const limited = (max: number): ModelWithLimits =>
      Object.assign(scriptedModel([final("ok")]), { maxReplyTokens: max });
    const cases: [ModelWithLimits, { replyReserve?: number }, AgentResult["status"], number][] = [
      [scriptedModel([final("ok")]), {}, "done", 0],
      [limited(100), {}, "done", 100],
      [limited(101), {}, "token_budget", 101],
      [limited(101), { replyReserve: 0 }, "done", 0],
      [limited(5), { replyReserve: 101 }, "token_budget", 101],
    ];
    for (const [i, [model, options, status, logged]] of cases.entries()) {
      const store = new MemoryEventStore();
      const result = await runAgent("t", model, registry, { tokenBudget: budget, store, runId: `r${i}`, ...options });
      expect(result.status, `case ${i}`).toBe(status);
      expect((await store.read(`r${i}`))[0], `case ${i}`).toMatchObject({ settings: { replyReserve: logged } });
    }
  });

  it("resume keeps the logged reserve, whatever model it is given", async () => {
    const registry = tools();
    const store = new MemoryEventStore();
    const ask = asks(toolCall("s", "send"));
    const model = Object.assign(scriptedModel([ask]), { maxReplyTokens: 100 });
    // The budget fits the first call with the reserve, and the second call without it, not with it.
    const secondPrompt = (() => {
      const list = [...first, assistantOf(ask), { role: "tool", toolCallId: "s", name: "send", content: '"sent"' }];
      return countTokens(registry.specs()) + countTokens(list);
    })();
    const spentFirst = firstPrompt(registry) + countTokens(assistantOf(ask));
    const budget = spentFirst + secondPrompt + 50;
    const paused = await runAgent("t", model, registry, { tokenBudget: budget, store, runId: "keep" });
    expect(paused.status).toBe("awaiting_approval");
    const plain = scriptedModel([final("ok")]);
    const result = await resumeAgent("keep", plain, registry, { store, decisions: { s: { approved: true } } });
    expect([result.status, result.tokens]).toEqual(["token_budget", spentFirst]);
    expect(plain.seen).toEqual([]);
  });

  it.each([-1, Number.NaN])("replyReserve %s is a RangeError before anything runs", async (reserve) => {
    const model = scriptedModel([final("x")]);
    await expect(runAgent("t", model, tools(), { replyReserve: reserve })).rejects.toThrow(RangeError);
    expect(model.seen).toEqual([]);
  });

  // Regression test; before the fix: replyReserve Infinity passes checkLimits (`!(Infinity >= 0)` is false) and is logged; JSON writes it
  // as null, and parseEventLog then refuses the run's own log ("needs settings.replyReserve to be a number of
  // tokens"): store.read throws, so the run can never be replayed, listed or resumed. Expected: either a
  // RangeError up front, or Infinity logged as null and read back as Infinity (as tokenBudget and repeatLimit are).
  it("replyReserve Infinity is either refused up front or logged so that the log reads back", async () => {
    const store = new MemoryEventStore();
    let result: AgentResult;
    try {
      result = await runAgent("t", scriptedModel([final("x")]), tools(), {
        replyReserve: Number.POSITIVE_INFINITY,
        store,
        runId: "inf",
      });
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError);
      return;
    }
    expect(result.status).toBe("token_budget");
    const log = await store.read("inf");
    expect(replayRun(log).result).toEqual(comparable(result));
  });
});
