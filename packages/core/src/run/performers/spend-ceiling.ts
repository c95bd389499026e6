import type { CeilingReached, RunSettings } from "../../data/index.js";
import { pricedModels, unpricedNames } from "../../decide/index.js";
import {
  checkSpendLimits,
  type SpendLedger,
  type SpendLimits,
  type SpendWindows,
  spendWindows,
} from "../../log/index.js";
import { answerOf, type EventAnswer } from "./event-answer.js";

/**
 * A ceiling on what the run's owner spends across all their runs, kept in a ledger the processes
 * of a store share (a served agent's `tenantBudget` sets it). Before each model call the call's
 * most possible cost is held in the ledger, or the call is refused (`ceiling.reached`) when the
 * owner's spending in the day or the month plus that hold would pass its limit; once the call is
 * answered, the hold is settled to what the run counted the call at.
 */
export interface SpendCeiling {
  /** Whose spending it is: a tenant, usually. */
  readonly owner: string;
  readonly limits: SpendLimits;
  readonly ledger: SpendLedger;
  /** The clock that picks the day and month a call counts in (default: now). */
  readonly now?: (() => Date) | undefined;
}

/**
 * Refuses, before anything is logged, a ceiling a run cannot hold: limits that are not amounts, or
 * a run without prices (its calls would cost an unknown amount), naming the owner.
 */
export function checkCeiling(ceiling: SpendCeiling, settings: Pick<RunSettings, "prices" | "handoffs">): void {
  if (typeof ceiling.owner !== "string" || ceiling.owner === "") {
    throw new TypeError("ceiling.owner must be a non-empty string (whose spending it is)");
  }
  checkSpendLimits(ceiling.limits, `ceiling of '${ceiling.owner}'`);
  if (settings.prices === undefined) {
    throw new TypeError(
      `a spending ceiling (of '${ceiling.owner}') needs the run priced: give pricing, so that each call's cost is known before it is made`,
    );
  }
  // A call with no price would hold nothing, and so pass the ceiling unchecked.
  const agents = settings.handoffs?.agents.flatMap((agent) => (agent.price === undefined ? [] : [agent.price])) ?? [];
  const unpriced = unpricedNames([...pricedModels(settings.prices), ...agents]);
  if (unpriced.length > 0) {
    throw new RangeError(
      `a spending ceiling (of '${ceiling.owner}') needs a price for every model the run may call, and pricing has none (nor a "default") for ${unpriced.join(", ")}`,
    );
  }
}

/** What a call holds in the ledger until it is answered. */
export interface SpendHeld {
  readonly windows: SpendWindows;
  readonly amount: number;
}

/**
 * Holds `reserve` USD for the next model call, or the `ceiling.reached` answer that refuses it.
 * A call with no price (`reserve` null) holds nothing: a run under a ceiling is refused before it
 * starts when a model it may call has none.
 */
export async function holdForCall(
  ceiling: SpendCeiling,
  reserve: number | null,
): Promise<{ readonly held: SpendHeld | null } | { readonly refused: EventAnswer<CeilingReached> }> {
  if (reserve === null) return { held: null };
  const { owner, limits, ledger, now } = ceiling;
  const hold = await ledger.reserve(owner, reserve, limits, now?.() ?? new Date());
  if (hold.held) return { held: { windows: hold.windows, amount: reserve } };
  const { window, limit, spent } = hold;
  return { refused: answerOf({ type: "ceiling.reached", window, limit, spent, reserve }) };
}

/**
 * Settles what the run spent once an event is counted: a model call's hold becomes what the run
 * charged it (`spent` is the run's cost after the event less before), a failed call gives its hold
 * back, and spending without a hold (a child run's, a summary's) is added where it falls now.
 */
export async function settleSpent(ceiling: SpendCeiling, held: SpendHeld | null, spent: number): Promise<void> {
  if (held !== null) {
    const difference = spent - held.amount;
    if (difference !== 0) await ceiling.ledger.settle(ceiling.owner, held.windows, difference);
    return;
  }
  if (spent <= 0) return;
  await ceiling.ledger.settle(ceiling.owner, spendWindows(ceiling.now?.() ?? new Date()), spent);
}
