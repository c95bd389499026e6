import type { AgentResult, Pricing } from "../../data/index.js";

/**
 * The money side of agent tools: a child is priced by its own `pricing`, else by its parent's;
 * with a cost budget it spends at most what its parent has left (`childShare` in decide/); and what
 * it spent is counted in its parent's cost through its `tool.finished`.
 */

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
