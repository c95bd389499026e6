import { type AgentContext, checkedPromptTokens } from "./agent-context.js";
import { dearestInput, pricedModel } from "./cost.js";
import { currentAttempt } from "./model-retry.js";

/**
 * A child's share of what its parent has left, decided from the parent's context alone: the
 * budget rule of agent tools, pure so that every driver (in process, on a durable engine) shares
 * it. The driver keeps what the children in flight reserved, and gives it here.
 */

/** Prices are per 1M tokens. */
const TOKENS_PER_PRICE = 1_000_000;

/** What the children in flight have reserved of their parent's budgets. */
export interface Reserved {
  readonly tokens: number;
  readonly cost: number;
}

/** A child's share of what its parent has left: tokens and USD (`Infinity`: no limit). */
export interface ChildShare {
  readonly tokenBudget: number;
  readonly costBudget: number;
}

/**
 * Tokens the parent has left for a child starting now: its budget, less what its turn has spent,
 * what its next prompt shows at least (the list so far and the tool specs, or what the provider
 * counted of them) with its reply reserve, and what the children in flight have reserved.
 */
export function tokensLeft(context: AgentContext, reserved: number): number {
  const spent = context.tokens - context.turnStart.tokens;
  const keep = checkedPromptTokens(context) + context.replyReserve;
  return Math.max(0, Math.floor(context.tokenBudget - spent - keep - reserved));
}

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
      : (checkedPromptTokens(context) * dearestInput(price) + context.replyReserve * price.output) / TOKENS_PER_PRICE;
  return Math.max(0, context.costBudget - (context.cost - context.turnStart.cost) - next - reserved);
}

/**
 * The share a child starting now may spend: what the parent has left, shared evenly with the agent
 * calls of the reply still to start (`later` of them after this one), never more than the child's
 * own limits (`own`).
 */
export function childShare(context: AgentContext, reserved: Reserved, own: ChildShare, later: number): ChildShare {
  const tokenBudget = Math.min(own.tokenBudget, Math.floor(tokensLeft(context, reserved.tokens) / (1 + later)));
  const costBudget = Math.min(own.costBudget, costLeft(context, reserved.cost) / (1 + later));
  return { tokenBudget, costBudget };
}
