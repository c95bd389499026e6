import type { AgentResult, Pricing } from "../data/index.js";
import { type AgentContext, currentAttempt, dearestInput, pricedModel, promptTokens } from "../decide/index.js";

/**
 * The money side of agent tools: a child is priced by its own `pricing`, else by its parent's;
 * with a cost budget it spends at most what its parent has left; and what it spent is counted in
 * its parent's cost through its `tool.finished`.
 */

/** Prices are per 1M tokens. */
const TOKENS_PER_PRICE = 1_000_000;

/**
 * USD the parent has left for children starting now: its cost budget, less what its turn has
 * spent, its next call at least (the prompt so far and its longest reply) and what the children in
 * flight have reserved. `Infinity` without a cost budget.
 */
export function costLeft(context: AgentContext, reserved: number): number {
  if (context.costBudget === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  const price = pricedModel(context.prices, currentAttempt(context).model)?.price;
  const next =
    price === undefined || price === null
      ? 0
      : (promptTokens(context) * dearestInput(price) + context.replyReserve * price.output) / TOKENS_PER_PRICE;
  return Math.max(0, context.costBudget - (context.cost - context.turnStart.cost) - next - reserved);
}

/** What a child's `tool.finished` carries of its spending: its cost, or the models it had no price for. */
export function childSpending(result: AgentResult): { cost?: number; unpriced?: readonly string[] } {
  if (result.unpriced !== undefined && result.unpriced.length > 0) return { unpriced: result.unpriced };
  return result.cost === undefined ? {} : { cost: result.cost };
}

/** What a child starts with: the pricing it inherits (when its own options have none) and its share of the cost budget. */
export interface ChildMoney {
  readonly pricing?: Pricing | undefined;
  readonly costBudget: number;
}
