import type { ModelPrice, PricedModel, RunPrices, Usage } from "../data/index.js";

/**
 * What a run costs, as plain functions of its logged prices and usage: no clock, no lookup. A call
 * is charged with its provider's `usage` when the run counts it, else with the estimate the token
 * budget uses; the check before a call prices its whole prompt at the model's dearest input rate
 * (input, cached or cache-write: however the provider splits it, it costs no more) and reserves the
 * model's longest reply at the output rate.
 */

/** Prices are per 1M tokens. */
const TOKENS_PER_PRICE = 1_000_000;

/** The name a model without one is listed under in `unpriced`. */
export const UNNAMED_MODEL = "(unnamed model)";

/** Every model a run's prices name: its own and its fallbacks, then the summarizer's when it summarizes. */
export function pricedModels(prices: RunPrices): readonly PricedModel[] {
  return prices.summarizer === undefined ? prices.models : [...prices.models, prices.summarizer];
}

/** The names of the models without a price, each once. */
export function unpricedNames(models: readonly PricedModel[]): string[] {
  const names = models.filter((each) => each.price === null).map((each) => each.name ?? UNNAMED_MODEL);
  return [...new Set(names)];
}

/** Where a run's spending stands: USD so far, and the models called without a price (their calls cost an unknown amount). */
export interface CostState {
  readonly cost: number;
  readonly unpriced: readonly string[];
}

/** USD that `usage` costs at `price`: cached and cache-write tokens at their rates (the input rate when absent). */
export function usageCost(price: ModelPrice, usage: Usage): number {
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const plain = usage.inputTokens - cached - written;
  return (
    (plain * price.input +
      cached * (price.cachedInput ?? price.input) +
      written * (price.cacheWrite ?? price.input) +
      usage.outputTokens * price.output) /
    TOKENS_PER_PRICE
  );
}

/** The spending after a call to `model` used `usage`: its cost added, or its name listed when it has no price. */
export function charge(state: CostState, model: PricedModel | undefined, usage: Usage): CostState {
  const price = model?.price ?? null;
  if (price !== null) return { cost: state.cost + usageCost(price, usage), unpriced: state.unpriced };
  const name = model?.name ?? UNNAMED_MODEL;
  return state.unpriced.includes(name) ? state : { cost: state.cost, unpriced: [...state.unpriced, name] };
}

/** The spending after a child run's: its cost added, and the models it had no price for listed. */
export function chargeChild(state: CostState, cost: number | undefined, unpriced: readonly string[] = []): CostState {
  const names = unpriced.filter((name) => !state.unpriced.includes(name));
  return {
    cost: state.cost + (cost ?? 0),
    unpriced: names.length === 0 ? state.unpriced : [...state.unpriced, ...names],
  };
}

/** The most a prompt token can cost at `price`: its input, cached or cache-write rate, whichever is dearest. */
export function dearestInput(price: ModelPrice): number {
  return Math.max(price.input, price.cachedInput ?? price.input, price.cacheWrite ?? price.input);
}

/** USD a call to `price` with a prompt of `promptTokens` and a reply of up to `reserve` tokens costs at most. */
export function mostCallCost(price: ModelPrice, promptTokens: number, reserve: number): number {
  return (promptTokens * dearestInput(price) + reserve * price.output) / TOKENS_PER_PRICE;
}

/** Whether a call to `price` with a prompt of `promptTokens` and a reply of up to `reserve` tokens would push `spent` past `budget`. */
export function wouldOverspend(
  price: ModelPrice | null,
  spent: number,
  promptTokens: number,
  reserve: number,
  budget: number,
): boolean {
  if (budget === Number.POSITIVE_INFINITY || price === null) return false;
  return spent + mostCallCost(price, promptTokens, reserve) > budget;
}

/** The priced model that call attempt `model` goes to (0 the run's, 1 the first fallback, …), or undefined without prices. */
export function pricedModel(prices: RunPrices | null, model: number): PricedModel | undefined {
  return prices === null ? undefined : prices.models[model];
}
