import { describe, expect, it } from "vitest";
import { type AgentContext, initialContext, promptTokens } from "./agent-context.js";
import { childShare, costLeft, tokensLeft } from "./child-budget.js";

/** A parent's context at its start, with a token budget and a reply reserve. */
function parent(tokenBudget: number, replyReserve = 100): AgentContext {
  return initialContext({ settings: { task: "t", system: "s", maxSteps: 5, tokenBudget, replyReserve, tools: [] } });
}

const unlimited = { tokenBudget: Number.POSITIVE_INFINITY, costBudget: Number.POSITIVE_INFINITY };

describe("a child's share of its parent's budget (pure)", () => {
  it("is what the parent has left after its next prompt and reply reserve, less what children in flight hold", () => {
    const context = parent(10_000);
    const keep = promptTokens(context) + 100;
    expect(tokensLeft(context, 0)).toBe(10_000 - keep);
    expect(tokensLeft(context, 1_000)).toBe(10_000 - keep - 1_000);
    expect(tokensLeft(context, 20_000)).toBe(0);
  });

  it("is shared evenly with the agent calls of the reply still to start, and never more than the child's own", () => {
    const context = parent(10_000);
    const left = tokensLeft(context, 0);
    expect(childShare(context, { tokens: 0, cost: 0 }, unlimited, 0).tokenBudget).toBe(left);
    expect(childShare(context, { tokens: 0, cost: 0 }, unlimited, 3).tokenBudget).toBe(Math.floor(left / 4));
    const own = { tokenBudget: 50, costBudget: Number.POSITIVE_INFINITY };
    expect(childShare(context, { tokens: 0, cost: 0 }, own, 0).tokenBudget).toBe(50);
  });

  it("has no cost limit without a parent cost budget, and gives the same share for the same context", () => {
    const context = parent(10_000);
    expect(costLeft(context, 0)).toBe(Number.POSITIVE_INFINITY);
    const share = childShare(context, { tokens: 10, cost: 0 }, unlimited, 1);
    expect(childShare(context, { tokens: 10, cost: 0 }, unlimited, 1)).toEqual(share);
  });
});
