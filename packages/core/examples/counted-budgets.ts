import assert from "node:assert/strict";
import {
  asks,
  countTokens,
  final,
  type Message,
  type Model,
  runAgent,
  ToolRegistry,
  tool,
  toolCall,
} from "@agentloop/core";

const registry = new ToolRegistry([
  tool({
    name: "get_weather",
    description: "Current temperature of one city in Celsius.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => ({ city, celsius: 33 }),
  }),
]);

// A provider that counts 20,000 prompt tokens for every call (its own system prompt, a tokenizer
// that counts differently: the run cannot know), at $2 / $8 per 1M tokens. It keeps the prompts
// it was shown, so that we can see what the run estimated of them.
function provider(): Model & { modelName: string; shown: number[] } {
  const replies = [
    asks(toolCall("w1", "get_weather", { city: "Pune" })),
    asks(toolCall("w2", "get_weather", { city: "Pune" })),
    final("33 °C."),
  ];
  const shown: number[] = [];
  const model = (messages: readonly Message[], tools: readonly unknown[]) => {
    shown.push(countTokens(tools) + countTokens(messages));
    return { ...(replies[shown.length - 1] ?? final("-")), usage: { inputTokens: 20_000, outputTokens: 525 } };
  };
  return Object.assign(model, { modelName: "big-prompt", shown });
}
const pricing = { "big-prompt": { input: 2, output: 8 } };

// A call costs 20,000 × $2 + 525 × $8 per 1M = $0.0442. The run estimates the first prompt at 70
// tokens; the provider counted 20,000. The check before the second call counts that: the
// next prompt is at least 20,000 plus what was appended since, which a budget of $0.06 cannot hold.
const model = provider();
const capped = await runAgent("How hot is Pune?", model, registry, {
  pricing,
  costBudget: 0.06,
  tokenBudget: Number.POSITIVE_INFINITY,
});
assert.equal(capped.status, "cost_budget");
assert.equal(capped.steps, 1);
assert.equal(capped.cost?.toFixed(4), "0.0442");
// The model was called once, with a prompt the run estimated at 70 tokens.
assert.deepEqual(model.shown, [70]);

// The same with tokens: 20,525 spent, and a next prompt of at least 20,000 does not fit in 30,000.
const tokens = await runAgent("How hot is Pune?", provider(), registry, { tokenBudget: 30_000 });
assert.equal(tokens.status, "token_budget");
assert.equal(tokens.tokens, 20_525);

// The first call can always surprise: its prompt is only estimated. When a provider counts more
// than a budget allowed for, the result says by how much.
const surprised = await runAgent("How hot is Pune?", provider(), registry, {
  pricing,
  costBudget: 0.01,
  tokenBudget: 10_000,
});
assert.equal(surprised.status, "token_budget");
assert.equal(surprised.tokensOverBudget, 10_525);
assert.equal(surprised.costOverBudget?.toFixed(4), "0.0342");
