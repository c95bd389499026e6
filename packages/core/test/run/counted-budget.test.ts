import { describe, expect, it } from "vitest";
import {
  asks,
  countTokens,
  final,
  MemoryEventStore,
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
import { makeWeatherRegistry } from "../../src/testing.js";
import { comparable } from "./trace.js";

// The budgets count what the provider counted: the check before a call takes the next prompt to be
// at least what the called model's provider counted of its last prompt plus the estimate of what
// was appended since. Logged usage is the source, so replay and resume decide the same.

/** A reply as a provider that counts 20,000 prompt tokens a call would bill it. */
const counted = (reply: ModelReply): ModelReply => ({ ...reply, usage: { inputTokens: 20_000, outputTokens: 525 } });
const lookup = (id: string) => asks(toolCall(id, "get_weather", { city: "Pune" }));
const script = () => scriptedModel([counted(lookup("w1")), counted(lookup("w2")), counted(final("33 °C."))]);
const PRICING = { default: { input: 2, output: 8 } };

/** A model that answers with `replies` in turn, or throws where the entry is an error; it says how often it was called. */
function acting(replies: readonly (ModelReply | Error)[]): Model & { calls: number } {
  const model = Object.assign(
    () => {
      const next = replies[model.calls++];
      if (next === undefined) throw new Error("the script ran out");
      if (next instanceof Error) throw next;
      return next;
    },
    { calls: 0 },
  );
  return model;
}

describe("the check before the second call counts the first call's reported prompt", () => {
  // The example of the guide: 20,000 prompt tokens a call at $2 / $8 per 1M, a call costs $0.0442.
  it("costBudget 0.06: the second call ($0.0884 in all, 47% over) is never made", async () => {
    const model = script();
    const result = await runAgent("How hot is Pune?", model, makeWeatherRegistry().registry, {
      pricing: PRICING,
      costBudget: 0.06,
      tokenBudget: Number.POSITIVE_INFINITY,
    });
    expect([result.status, result.steps, model.seen.length]).toEqual(["cost_budget", 1, 1]);
    expect(result.cost).toBeCloseTo(0.0442, 12);
    expect(result).not.toHaveProperty("costOverBudget");
  });

  it("tokenBudget 30,000: the second call (41,050 tokens in all) is never made", async () => {
    const model = script();
    const result = await runAgent("How hot is Pune?", model, makeWeatherRegistry().registry, { tokenBudget: 30_000 });
    expect([result.status, result.steps, result.tokens, model.seen.length]).toEqual(["token_budget", 1, 20_525, 1]);
    expect(result).not.toHaveProperty("tokensOverBudget");
  });

  it("a budget that holds the count and what came since lets the second call be made", async () => {
    const model = script();
    const result = await runAgent("How hot is Pune?", model, makeWeatherRegistry().registry, { tokenBudget: 41_500 });
    // The third call's check counts 20,000 again: 41,050 spent leaves no room for it.
    expect([result.status, result.steps, result.tokens]).toEqual(["token_budget", 2, 41_050]);
  });

  it("a provider that counts fewer tokens than the estimate leaves the estimate in force", async () => {
    const small = (reply: ModelReply): ModelReply => ({ ...reply, usage: { inputTokens: 1, outputTokens: 1 } });
    const registry = makeWeatherRegistry().registry;
    const script = () => scriptedModel([small(lookup("w1")), small(final("33 °C."))]);
    const roomy = script();
    await runAgent("How hot is Pune?", roomy, registry);
    const secondPrompt = countTokens(registry.specs()) + countTokens(roomy.seen[1]);
    // The first call counted 2 tokens; the second needs its estimate, not the 1 token counted of the first prompt.
    const fits = await runAgent("How hot is Pune?", script(), registry, { tokenBudget: 2 + secondPrompt });
    expect([fits.status, fits.tokens]).toEqual(["done", 4]);
    const short = await runAgent("How hot is Pune?", script(), registry, { tokenBudget: 1 + secondPrompt });
    expect([short.status, short.steps]).toEqual(["token_budget", 1]);
  });
});

describe("the count is logged usage: replay and resume decide the same", () => {
  it("replay gives back the run's result from its log, and a log written before the count decides as it did", async () => {
    const store = new MemoryEventStore();
    const registry = makeWeatherRegistry().registry;
    const result = await runAgent("How hot is Pune?", script(), registry, { tokenBudget: 30_000, store, runId: "c" });
    const events = await store.read("c");
    expect(events[0]).toMatchObject({ type: "run.started", settings: { countPrompt: true, countUsage: true } });
    expect(replayRun(events).result).toEqual(comparable(result));

    // The same model, with no budget to stop it: two calls and their results, then cut off.
    const roomy = new MemoryEventStore();
    await runAgent("How hot is Pune?", script(), registry, { tokenBudget: 1e9, store: roomy, runId: "r" });
    const secondResult = (await roomy.read("r")).findLastIndex((event) => event.type === "tool.finished");
    const twoCalls = (await roomy.read("r")).slice(0, secondResult + 1).map(({ hash: _hash, ...event }) => event);
    const [started, ...rest] = twoCalls as [Extract<StoredEvent, { type: "run.started" }>, ...StoredEvent[]];
    const { countPrompt: _counts, ...before } = { ...started.settings, tokenBudget: 30_000 };
    // Written before the count: the second call was made, as the estimate let it be.
    const old = replayRun([{ ...started, settings: before }, ...rest]);
    expect([old.snapshot.value, old.result?.status, old.result?.steps, old.result?.tokens]).toEqual([
      "tokenBudget",
      "token_budget",
      2,
      41_050,
    ]);
    // Written with it: the second reply cannot be, the run ended before its call.
    const now = { ...started, settings: { ...before, countPrompt: true } };
    expect(() => replayRun([now, ...rest])).toThrow(/comes after the run reached its end/);
  });

  it("a run resumed after a pause counts the usage logged before it: the resumed model is never called", async () => {
    const registry = new ToolRegistry();
    registry.register("send", "Sends.", { type: "object" }, () => "sent", { needsApproval: true });
    const store = new MemoryEventStore();
    const first = scriptedModel([counted(asks(toolCall("s1", "send")))]);
    const paused = await runAgent("Send it.", first, registry, { tokenBudget: 30_000, store, runId: "p" });
    expect([paused.status, paused.tokens]).toEqual(["awaiting_approval", 20_525]);
    const later = scriptedModel([final("Sent.")]);
    const result = await resumeAgent("p", later, registry, { store, decisions: { s1: { approved: true } } });
    expect([result.status, result.steps, result.tokens]).toEqual(["token_budget", 1, 20_525]);
    expect(later.seen).toEqual([]);
    expect(replayRun(await store.read("p")).result).toEqual(comparable(result));
  });
});

describe("the count is per model, and a compaction starts it afresh", () => {
  const retryable = () => Object.assign(new Error("overloaded"), { retryable: true });

  it("a fallback's count does not decide the run's model's call, and is counted for its own next one", async () => {
    // Step 1: the run's model fails and the fallback answers, counting 20,000. Step 2: the run's
    // model has no count, so its call is made. Step 3: it fails again, and the fallback's count
    // keeps the fallback's call from being made.
    const main = acting([retryable(), lookup("w2"), retryable()]);
    const fallback = acting([counted(lookup("w1")), final("never")]);
    const result = await runAgent("How hot is Pune?", main, makeWeatherRegistry().registry, {
      tokenBudget: 30_000,
      fallbackModels: [fallback],
    });
    expect([result.status, result.steps, main.calls, fallback.calls]).toEqual(["token_budget", 2, 3, 1]);
  });

  it("a model prepareStep picks by name is counted apart from the run's", async () => {
    const big = Object.assign(acting([counted(lookup("w1")), final("never")]), { modelName: "big" });
    const main = Object.assign(acting([lookup("w2")]), { modelName: "small" });
    const result = await runAgent("How hot is Pune?", main, makeWeatherRegistry().registry, {
      tokenBudget: 30_000,
      prepareStep: ({ step }) => (step === 2 ? undefined : { model: big }),
    });
    expect([result.status, result.steps, big.calls, main.calls]).toEqual(["token_budget", 2, 1, 1]);
  });

  it("after a compaction the check counts the estimate again: the hidden messages were in the counted prompt", async () => {
    const run = (compact: boolean) =>
      runAgent(
        "How hot is Pune?",
        scriptedModel([lookup("w1"), counted(lookup("w2")), final("33 °C.")]),
        makeWeatherRegistry().registry,
        {
          tokenBudget: 30_000,
          ...(compact ? { compaction: { triggerTokens: 50, strategy: "trim", keepRecent: 2 } } : {}),
        },
      );
    const kept = await run(false);
    expect([kept.status, kept.steps]).toEqual(["token_budget", 2]);
    const trimmed = await run(true);
    expect([trimmed.status, trimmed.steps]).toEqual(["done", 3]);
  });
});

describe("what the provider counted past the budget is said", () => {
  it("the first call can surprise: the result says how many tokens and how many USD it went over", async () => {
    const store = new MemoryEventStore();
    const result = await runAgent("How hot is Pune?", script(), makeWeatherRegistry().registry, {
      tokenBudget: 10_000,
      pricing: PRICING,
      costBudget: 0.01,
      store,
      runId: "o",
    });
    expect([result.status, result.steps, result.tokensOverBudget]).toEqual(["token_budget", 1, 10_525]);
    expect(result.costOverBudget).toBeCloseTo(0.0342, 12);
    const events = await store.read("o");
    expect(events.at(-1)).toMatchObject({
      type: "run.finished",
      outcome: { tokensOverBudget: 10_525, costOverBudget: result.costOverBudget },
    });
    expect(replayRun(events).result).toEqual(comparable(result));
  });
});
