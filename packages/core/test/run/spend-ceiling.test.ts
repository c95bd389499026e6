import { describe, expect, it } from "vitest";
import {
  asks,
  continueAgent,
  final,
  handoff,
  MemoryEventStore,
  type Message,
  type Model,
  type ModelReply,
  replayRun,
  runAgent,
  type SpendCeiling,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { MemorySpendLedger, type SpendLedger, spendWindows } from "../../src/store.js";
import { makeWeatherRegistry } from "../../src/testing.js";

// A ceiling on what one owner spends across runs: before each model call the call's most possible
// cost is held in a ledger the store keeps, or the call is refused and the turn ends cost_budget
// with the ceiling named; once the call is answered, the hold is settled to what the run charged.

/** $2 / $8 per 1M tokens; each reply reports 10,000 prompt and 500 reply tokens: $0.024 a call. */
const PRICING = { default: { input: 2, output: 8 } };
const CALL_COST = (10_000 * 2 + 500 * 8) / 1_000_000;
const billed = (reply: ModelReply): ModelReply => ({ ...reply, usage: { inputTokens: 10_000, outputTokens: 500 } });
const lookup = (id: string) => billed(asks(toolCall(id, "get_weather", { city: "Pune" })));
const DAY = new Date("2026-12-07T10:00:00Z");
const now = () => DAY;

/** The model with the longest reply the checks reserve for: 1,000 tokens. */
function limited<M extends Model>(model: M): M {
  return Object.assign(model, { maxReplyTokens: 1_000 });
}

function ceilingOf(ledger: SpendLedger, limits: SpendCeiling["limits"], owner = "acme"): SpendCeiling {
  return { owner, limits, ledger, now };
}

describe("a spending ceiling across runs", () => {
  it("refuses the call that would pass the owner's day: the turn ends cost_budget naming the ceiling, and nothing was asked", async () => {
    const ledger = new MemorySpendLedger();
    await ledger.settle("acme", spendWindows(DAY), 0.995);
    const model = limited(scriptedModel([billed(final("33 °C."))]));
    const store = new MemoryEventStore();
    const result = await runAgent("How hot is Pune?", model, makeWeatherRegistry().registry, {
      store,
      pricing: PRICING,
      tokenBudget: Number.POSITIVE_INFINITY,
      ceiling: ceilingOf(ledger, { costPerDay: 1 }),
    });
    expect([result.status, result.steps, model.seen.length]).toEqual(["cost_budget", 0, 0]);
    expect(result.ceiling).toMatchObject({ window: "day", limit: 1, spent: 0.995 });
    // The prompt at $2 per 1M and the 1,000 reply tokens reserved at $8 per 1M.
    expect(result.ceiling?.reserve).toBeGreaterThan(0.008);
    const events = await store.read(result.runId as string);
    expect(events.map((event) => event.type)).toEqual(["run.started", "ceiling.reached", "run.finished"]);
    // The log decides the same without the ledger: a replay ends where the run did.
    const replayed = replayRun(events);
    expect(replayed.result?.ceiling).toEqual(result.ceiling);
    expect((await ledger.spent("acme", DAY)).day).toBeCloseTo(0.995, 12);
  });

  it("holds each call's most possible cost, then settles it to what the run charged: the ledger ends at the runs' cost", async () => {
    const ledger = new MemorySpendLedger();
    const ceiling = ceilingOf(ledger, { costPerDay: 10, costPerMonth: 100 });
    const store = new MemoryEventStore();
    const registry = makeWeatherRegistry().registry;
    const first = await runAgent(
      "How hot is Pune?",
      limited(scriptedModel([lookup("w1"), billed(final("33 °C."))])),
      registry,
      {
        store,
        pricing: PRICING,
        tokenBudget: Number.POSITIVE_INFINITY,
        ceiling,
      },
    );
    const second = await continueAgent(
      first.runId as string,
      "And tomorrow?",
      limited(scriptedModel([billed(final("31 °C."))])),
      registry,
      {
        store,
        ceiling,
      },
    );
    expect([first.status, second.status]).toEqual(["done", "done"]);
    expect(second.cost).toBeCloseTo(3 * CALL_COST, 12);
    const spent = await ledger.spent("acme", DAY);
    expect(spent.day).toBeCloseTo(3 * CALL_COST, 12);
    expect(spent.month).toBeCloseTo(3 * CALL_COST, 12);
    // Another owner's spending is theirs alone.
    expect(await ledger.spent("globex", DAY)).toEqual({ day: 0, month: 0 });
  });

  it("a month's ceiling refuses once the month is spent, though the day has room", async () => {
    const ledger = new MemorySpendLedger();
    await ledger.settle("acme", spendWindows(new Date("2026-12-01T08:00:00Z")), 4.995);
    const result = await runAgent(
      "How hot is Pune?",
      limited(scriptedModel([billed(final("33 °C."))])),
      makeWeatherRegistry().registry,
      {
        pricing: PRICING,
        tokenBudget: Number.POSITIVE_INFINITY,
        ceiling: ceilingOf(ledger, { costPerDay: 1, costPerMonth: 5 }),
      },
    );
    expect(result.status).toBe("cost_budget");
    expect(result.ceiling).toMatchObject({ window: "month", limit: 5 });
    expect(result.ceiling?.spent).toBeCloseTo(4.995, 12);
  });

  it("stops a run between its calls when the owner's other runs spent the rest meanwhile", async () => {
    const ledger = new MemorySpendLedger();
    const ceiling = ceilingOf(ledger, { costPerDay: 0.1 });
    const model: Model = limited((messages: readonly Message[]) => {
      // While the first call is answered, another run of the owner spends all but a little.
      if (messages.length <= 2) void ledger.settle("acme", spendWindows(DAY), 0.07);
      return messages.length <= 2 ? lookup("w1") : billed(final("33 °C."));
    });
    const result = await runAgent("How hot is Pune?", model, makeWeatherRegistry().registry, {
      pricing: PRICING,
      tokenBudget: Number.POSITIVE_INFINITY,
      ceiling,
    });
    expect([result.status, result.steps]).toEqual(["cost_budget", 1]);
    expect(result.ceiling?.window).toBe("day");
    expect((await ledger.spent("acme", DAY)).day).toBeCloseTo(0.07 + CALL_COST, 12);
  });

  it("concurrent runs of one owner never spend past the ceiling together, when no call costs more than its hold", async () => {
    const ledger = new MemorySpendLedger();
    const ceiling = ceilingOf(ledger, { costPerDay: 0.05 });
    // Each call bills 100 prompt and 500 reply tokens ($0.0042): less than the hold, which reserves 1,000 reply tokens.
    const light = (reply: ModelReply): ModelReply => ({ ...reply, usage: { inputTokens: 100, outputTokens: 500 } });
    const registry = makeWeatherRegistry().registry;
    const slow: Model = limited(async (messages: readonly Message[]) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const call = asks(toolCall(`w${messages.length}`, "get_weather", { city: "Pune" }));
      return light(messages.length < 8 ? call : final("done"));
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        runAgent("How hot is Pune?", slow, registry, {
          pricing: PRICING,
          tokenBudget: Number.POSITIVE_INFINITY,
          ceiling,
        }),
      ),
    );
    const total = results.reduce((sum, result) => sum + (result.cost ?? 0), 0);
    expect(total).toBeLessThanOrEqual(0.05);
    expect(results.some((result) => result.status === "cost_budget")).toBe(true);
    expect((await ledger.spent("acme", DAY)).day).toBeCloseTo(total, 12);
  });

  it("gives a failed call's hold back", async () => {
    const ledger = new MemorySpendLedger();
    const failing: Model = limited(() => {
      throw new Error("overloaded");
    });
    await expect(
      runAgent("How hot is Pune?", failing, makeWeatherRegistry().registry, {
        pricing: PRICING,
        tokenBudget: Number.POSITIVE_INFINITY,
        retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1 },
        ceiling: ceilingOf(ledger, { costPerDay: 1 }),
      }),
    ).rejects.toThrow(/overloaded/);
    expect(await ledger.spent("acme", DAY)).toEqual({ day: 0, month: 0 });
  });

  it("refuses a ceiling on a run without pricing, or with a limit that is not an amount, before anything is logged", async () => {
    const store = new MemoryEventStore();
    const registry = makeWeatherRegistry().registry;
    const ledger = new MemorySpendLedger();
    const model = scriptedModel([final("x")]);
    await expect(
      runAgent("x", model, registry, { store, runId: "unpriced", ceiling: ceilingOf(ledger, { costPerDay: 1 }) }),
    ).rejects.toThrow(/needs the run priced: give pricing/);
    await expect(
      runAgent("x", model, registry, {
        store,
        runId: "negative",
        pricing: PRICING,
        tokenBudget: Number.POSITIVE_INFINITY,
        ceiling: ceilingOf(ledger, { costPerDay: -1 }),
      }),
    ).rejects.toThrow(/costPerDay must be a number of USD, 0 or more/);
    expect(await store.list()).toEqual([]);
  });

  it("refuses a ceiling when a model the run may call has no price, before anything is logged: its calls would hold nothing", async () => {
    const store = new MemoryEventStore();
    const registry = makeWeatherRegistry().registry;
    const ledger = new MemorySpendLedger();
    const model = Object.assign(limited(scriptedModel([billed(final("x"))])), { modelName: "priced-model" });
    const unpriced = Object.assign(limited(scriptedModel([billed(final("y"))])), { modelName: "free-model" });
    const pricing = { "priced-model": { input: 2, output: 8 } };
    const ceiling = ceilingOf(ledger, { costPerDay: 1 });
    const tokenBudget = Number.POSITIVE_INFINITY;
    await expect(
      runAgent("x", unpriced, registry, { store, runId: "own", pricing, tokenBudget, ceiling }),
    ).rejects.toThrow(/a spending ceiling \(of 'acme'\) needs a price for every model the run may call.* free-model/);
    await expect(
      runAgent("x", model, registry, {
        store,
        runId: "fallback",
        pricing,
        tokenBudget,
        ceiling,
        fallbackModels: [unpriced],
      }),
    ).rejects.toThrow(/free-model/);
    const billing = Object.assign(scriptedModel([final("z")]), { modelName: "free-model" });
    const triage = new ToolRegistry([handoff({ name: "billing", model: billing, registry: new ToolRegistry() })]);
    await expect(
      runAgent("x", model, triage, { store, runId: "handoff", pricing, tokenBudget, ceiling }),
    ).rejects.toThrow(/free-model/);
    expect(await store.list()).toEqual([]);
    expect(model.seen).toHaveLength(0);
    expect(unpriced.seen).toHaveLength(0);
    expect(await ledger.spent("acme", DAY)).toMatchObject({ day: 0, month: 0 });
  });

  it("the memory store keeps a ledger of its own", () => {
    expect(new MemoryEventStore().spending).toBeInstanceOf(MemorySpendLedger);
  });
});
