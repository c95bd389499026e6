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
  ToolRegistry,
  toolCall,
} from "../../src/index.js";

// A model whose provider counts any multiple (1 to 100 times) of the estimate of each prompt: after
// the first call, which can always surprise, no call is made that the count says would pass the
// token or the cost budget. The count says the next prompt is at least the last call's reported
// prompt plus the estimate of what was appended since; a run that stops at a budget stops where
// that count (or the estimate) says the next call would pass it.

interface Call {
  /** The estimate of the prompt the model was shown: the specs and the messages, four characters a token. */
  readonly estimate: number;
  readonly input: number;
  readonly output: number;
}

function readRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "read",
    "Reads that many characters.",
    { type: "object", properties: { size: { type: "integer" } }, required: ["size"] },
    (args: { size: number }) => "x".repeat(args.size),
  );
  return registry;
}

/** A model that counts `multiple` times the estimate of each prompt and replies with `output` tokens, following `moves`. */
function multiplying(
  multiple: number,
  output: number,
  moves: readonly number[],
  calls: Call[],
): Model & { maxReplyTokens: number } {
  const model = (messages: readonly Message[], tools: readonly unknown[]): ModelReply => {
    const estimate = countTokens(tools) + countTokens(messages);
    const input = Math.ceil(estimate * multiple);
    calls.push({ estimate, input, output });
    const size = moves[calls.length - 1];
    const reply = size === undefined ? final("done") : asks(toolCall(`r${calls.length}`, "read", { size }));
    return { ...reply, usage: { inputTokens: input, outputTokens: output } };
  };
  return Object.assign(model, { maxReplyTokens: output });
}

const PRICE = { input: 3, output: 15 };

/** What the count says the next prompt is at least, after `calls`, when its estimate is `estimate`. */
function countedPrompt(calls: readonly Call[], estimate: number): number {
  const last = calls.at(-1);
  return last === undefined ? estimate : Math.max(estimate, last.input + estimate - last.estimate);
}

const usd = (prompt: number, reply: number) => (prompt * PRICE.input + reply * PRICE.output) / 1e6;

describe("budgets against a provider that counts a multiple of the estimate", () => {
  it("never makes a second call that the count says would pass the token or the cost budget", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 1, max: 100, noNaN: true }),
        fc.integer({ min: 0, max: 400 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 10 }),
        fc.integer({ min: 50, max: 400_000 }),
        fc.option(fc.double({ min: 0.0005, max: 2, noNaN: true }), { nil: undefined }),
        async (multiple, output, moves, tokenBudget, costBudget) => {
          const calls: Call[] = [];
          const registry = readRegistry();
          const result = await runAgent("Read.", multiplying(multiple, output, moves, calls), registry, {
            tokenBudget,
            maxSteps: 20,
            ...(costBudget === undefined ? {} : { costBudget, pricing: { default: PRICE } }),
          });
          let tokens = 0;
          let cost = 0;
          for (const [index, call] of calls.entries()) {
            if (index > 0) {
              // The check before this call: what was spent, the counted prompt, the longest reply.
              const prompt = countedPrompt(calls.slice(0, index), call.estimate);
              expect(tokens + prompt + output).toBeLessThanOrEqual(tokenBudget);
              if (costBudget !== undefined)
                expect(cost + usd(prompt, output)).toBeLessThanOrEqual(costBudget * (1 + 1e-9));
            }
            tokens += call.input + call.output;
            cost += usd(call.input, call.output);
          }
          expect(result.tokens).toBe(tokens);
          // A run stopped at a budget stopped where the count says the next call would pass it.
          const next = countedPrompt(calls, countTokens(registry.specs()) + countTokens(result.messages));
          if (result.status === "token_budget") expect(tokens + next + output).toBeGreaterThan(tokenBudget);
          if (result.status === "cost_budget") {
            expect(cost + usd(next, output)).toBeGreaterThan((costBudget as number) * (1 - 1e-9));
          }
          expect(["done", "token_budget", "cost_budget"]).toContain(result.status);
          // What the provider counted past a budget is said, and only then.
          expect(result.tokensOverBudget ?? 0).toBe(Math.max(0, tokens - tokenBudget));
          if (costBudget !== undefined && cost > costBudget * (1 + 1e-9)) {
            expect(result.costOverBudget).toBeCloseTo(cost - costBudget, 9);
          }
          if (costBudget === undefined || cost <= costBudget) expect(result.costOverBudget).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
  });
});
