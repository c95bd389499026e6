import assert from "node:assert/strict";
import { final, type Model, runAgent, ToolRegistry } from "@agentloop/core";

// A model as the adapters make it: it says its name (anthropicModel and openaiModel set
// `modelName` to their `model` option) and reports usage as billed, cache reads and writes apart.
const model: Model & { modelName: string; maxReplyTokens: number } = Object.assign(
  () => ({
    ...final("Paris."),
    usage: { inputTokens: 2000, outputTokens: 10, cachedInputTokens: 1800, cacheWriteTokens: 150 },
  }),
  { modelName: "claude-sonnet-4-5", maxReplyTokens: 1024 },
);

// USD per 1M tokens, by model name; "default" prices any model not listed.
const pricing = {
  "claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
};

const result = await runAgent("What is the capital of France?", model, new ToolRegistry(), {
  pricing,
  costBudget: 0.05, // USD a turn, checked before every model call
});
assert.equal(result.status, "done");
// 50 plain input tokens, 1,800 read from the cache, 150 written to it, 10 out.
assert.equal(result.cost?.toFixed(6), ((50 * 3 + 1800 * 0.3 + 150 * 3.75 + 10 * 15) / 1e6).toFixed(6));

// A budget the first call could pass: the model is never called.
const tight = await runAgent("What is the capital of France?", model, new ToolRegistry(), {
  pricing,
  costBudget: 0.001,
});
assert.equal(tight.status, "cost_budget");
assert.equal(tight.steps, 0);
