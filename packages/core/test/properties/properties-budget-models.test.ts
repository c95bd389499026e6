import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  asks,
  countTokens,
  final,
  type Message,
  type Model,
  type ModelReply,
  runAgent,
  toolCall,
} from "../../src/index.js";
import type { ModelWithLimits } from "../../src/machine.js";
import { bigResults } from "../run/compaction-fixture.js";

// Random runs with fallback models and a summarizer, each declaring its own `maxReplyTokens` and
// each replying with as many tokens as it may (as its provider counts them): however the calls
// fall, the run's tokens never pass the budget — the check before a call reserves the reply of the
// model that is called, the run's, a fallback's or the summarizer's.

/** A model that declares `limit` and reports usage: its prompt as estimated, and a reply of all `limit` tokens (the worst case). */
function counted(
  limit: number,
  reply: (messages: readonly Message[], tools: readonly unknown[]) => ModelReply | Error,
) {
  const model: Model = (messages, tools) => {
    const made = reply(messages, tools);
    if (made instanceof Error) throw made;
    const inputTokens = countTokens(tools) + countTokens(messages);
    return { ...made, usage: { inputTokens, outputTokens: limit } };
  };
  return Object.assign(model, { maxReplyTokens: limit }) as ModelWithLimits;
}

const failure = (retryable: boolean) => Object.assign(new Error("model failed"), { retryable });

describe("the budget over fallbacks and summaries, over random runs", () => {
  it("a run's tokens stay within the budget whichever model is called", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 300, max: 9000 }),
        fc.array(fc.integer({ min: 10, max: 3000 }), { minLength: 3, maxLength: 3 }),
        fc.array(fc.constantFrom("fail", "retryable", "fetch", "answer"), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (budget, [mainLimit = 10, fallbackLimit = 10, summaryLimit = 10], moves, retry) => {
          let call = 0;
          const main = counted(mainLimit, () => {
            const move = moves[call++] ?? "answer";
            if (move === "fail") return failure(false);
            if (move === "retryable") return failure(true);
            if (move === "answer") return final("done");
            return asks(toolCall(`c${call}`, "fetch", { page: call }));
          });
          const fallback = counted(fallbackLimit, () => {
            const move = moves[call++] ?? "answer";
            return move === "fetch" ? asks(toolCall(`f${call}`, "fetch", { page: call })) : final("fallback done");
          });
          const summarizer = counted(summaryLimit, (_, tools) =>
            tools.length > 0 ? failure(false) : final("summary ".repeat(Math.min(200, summaryLimit / 2))),
          );
          const result = await runAgent("Read the pages.", main, bigResults(), {
            tokenBudget: budget,
            maxSteps: 20,
            fallbackModels: [fallback],
            ...(retry ? { retry: { attempts: 1, initialDelayMs: 0, maxDelayMs: 0 } } : {}),
            compaction: { triggerTokens: 800, keepRecent: 1, summarizer },
          }).catch((error: unknown) => error);
          // Every model failed: the run rejects, and nothing was spent past the checks.
          if (result instanceof Error) return;
          expect((result as { tokens: number }).tokens).toBeLessThanOrEqual(budget);
        },
      ),
      { numRuns: 120 },
    );
  });
});
