import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  asks,
  countTokens,
  final,
  type Message,
  type Model,
  type ModelPrice,
  type ModelReply,
  runAgent,
  toolCall,
} from "../../src/index.js";
import type { ModelWithLimits } from "../../src/machine.js";
import { bigResults } from "../run/compaction-fixture.js";

// Random runs with a fallback model and a summarizer, each with its own price and longest reply,
// each reporting usage as its provider would bill it (the prompt as estimated, split at random
// into plain, cached and cache-write tokens; a reply of all its tokens, the worst case): however
// the calls fall, the run's cost never passes costBudget, and it is the sum of what each call cost.

interface Billed {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
}

/** A model named `name`, declaring `limit`, that reports usage with `cachedShare` and `writeShare` of its prompt from and to the cache. */
function billed(
  name: string,
  limit: number,
  shares: readonly [number, number],
  bills: Billed[],
  reply: (messages: readonly Message[], tools: readonly unknown[]) => ModelReply | Error,
) {
  const model: Model = (messages, tools) => {
    const made = reply(messages, tools);
    if (made instanceof Error) throw made;
    const inputTokens = countTokens(tools) + countTokens(messages);
    const cachedInputTokens = Math.floor(inputTokens * shares[0]);
    const cacheWriteTokens = Math.floor((inputTokens - cachedInputTokens) * shares[1]);
    const usage = { inputTokens, outputTokens: limit, cachedInputTokens, cacheWriteTokens };
    bills.push(usage);
    return { ...made, usage };
  };
  return Object.assign(model, { maxReplyTokens: limit, modelName: name }) as ModelWithLimits;
}

/** What a bill costs at a price, written out independently of core's arithmetic. */
function costOf(price: ModelPrice, bill: Billed): number {
  const plain = bill.inputTokens - bill.cachedInputTokens - bill.cacheWriteTokens;
  const micro =
    plain * price.input +
    bill.cachedInputTokens * (price.cachedInput ?? price.input) +
    bill.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    bill.outputTokens * price.output;
  return micro / 1e6;
}

const failure = (retryable: boolean) => Object.assign(new Error("model failed"), { retryable });
const rate = fc.double({ min: 0, max: 80, noNaN: true });
const price = fc.record({ input: rate, output: rate, cachedInput: rate, cacheWrite: rate });
const share = fc.double({ min: 0, max: 1, noNaN: true });

describe("the cost budget over random runs", () => {
  it("a run's cost stays within costBudget whichever model is called, and is the sum of its calls' bills", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0.001, max: 0.5, noNaN: true }),
        fc.tuple(price, price, price),
        fc.array(fc.integer({ min: 10, max: 3000 }), { minLength: 3, maxLength: 3 }),
        fc.tuple(share, share),
        fc.array(fc.constantFrom("fail", "retryable", "fetch", "answer"), { minLength: 1, maxLength: 12 }),
        async (costBudget, [mainPrice, fallbackPrice, summaryPrice], limits, shares, moves) => {
          const [mainLimit = 10, fallbackLimit = 10, summaryLimit = 10] = limits;
          const bills = { main: [] as Billed[], fallback: [] as Billed[], summarizer: [] as Billed[] };
          let call = 0;
          const main = billed("main", mainLimit, shares, bills.main, () => {
            const move = moves[call++] ?? "answer";
            if (move === "fail") return failure(false);
            if (move === "retryable") return failure(true);
            if (move === "answer") return final("done");
            return asks(toolCall(`c${call}`, "fetch", { page: call }));
          });
          const fallback = billed("fallback", fallbackLimit, shares, bills.fallback, () => {
            const move = moves[call++] ?? "answer";
            return move === "fetch" ? asks(toolCall(`f${call}`, "fetch", { page: call })) : final("fallback done");
          });
          const summarizer = billed("summarizer", summaryLimit, shares, bills.summarizer, (_, tools) =>
            tools.length > 0 ? failure(false) : final("summary ".repeat(Math.min(200, summaryLimit / 2))),
          );
          const pricing = { main: mainPrice, fallback: fallbackPrice, summarizer: summaryPrice };
          const result = await runAgent("Read the pages.", main, bigResults(), {
            tokenBudget: Number.POSITIVE_INFINITY,
            costBudget,
            pricing,
            maxSteps: 20,
            fallbackModels: [fallback],
            retry: { attempts: 1, initialDelayMs: 0, maxDelayMs: 0 },
            compaction: { triggerTokens: 800, keepRecent: 1, summarizer },
          }).catch((error: unknown) => error);
          // Every model failed: the run rejects, and nothing was spent past the checks.
          if (result instanceof Error) return;
          const { cost, status } = result as { cost?: number; status: string };
          expect(cost).toBeDefined();
          expect(cost).toBeLessThanOrEqual(costBudget * (1 + 1e-9));
          const billedCost = (["main", "fallback", "summarizer"] as const).reduce(
            (sum, name) => sum + bills[name].reduce((part, bill) => part + costOf(pricing[name], bill), 0),
            0,
          );
          expect(cost).toBeCloseTo(billedCost, 9);
          expect(["done", "cost_budget", "step_limit"]).toContain(status);
        },
      ),
      { numRuns: 80 },
    );
  });
});
