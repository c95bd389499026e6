import type { Model, ModelPrice, PricedModel, Pricing, RunPrices, RunSettings } from "../../data/index.js";
import { pricedModels, unpricedNames } from "../../decide/index.js";

/** A model that says its name (adapters set it), so that `pricing` can price it. */
export type NamedModel = Model & { readonly modelName?: string };

/** What the prices of a run are resolved from: the options that name prices and models. */
export interface PricingOptions {
  readonly pricing?: Pricing;
  readonly costBudget?: number;
  readonly fallbackModels?: readonly Model[];
  readonly compaction?: { readonly strategy?: "summarize" | "trim"; readonly summarizer?: Model };
}

const PRICE_FIELDS = ["input", "output", "cachedInput", "cacheWrite"] as const;

/** A model's name: its `modelName` when it is a non-empty string, else null. */
export function modelNameOf(model: unknown): string | null {
  if (typeof model !== "function") return null;
  const name = (model as NamedModel).modelName;
  return typeof name === "string" && name !== "" ? name : null;
}

/** The price `pricing` gives a model of that name: its own entry, else `default`, else null. */
export function priceOf(pricing: Pricing, name: string | null): ModelPrice | null {
  if (name !== null && Object.hasOwn(pricing, name)) return pricing[name] as ModelPrice;
  return Object.hasOwn(pricing, "default") ? (pricing.default as ModelPrice) : null;
}

/**
 * Checks `pricing` and returns it: an object of model names, each `{ input, output, cachedInput?,
 * cacheWrite? }` in USD per 1M tokens, every number finite and 0 or more. Throws a `TypeError` or
 * `RangeError` with one line naming the bad value.
 */
export function checkPricing(pricing: unknown): Pricing {
  if (pricing === null || typeof pricing !== "object" || Array.isArray(pricing)) {
    throw new TypeError("pricing must be an object of model names, each { input, output, cachedInput?, cacheWrite? }");
  }
  for (const [name, price] of Object.entries(pricing)) {
    if (price === null || typeof price !== "object" || Array.isArray(price)) {
      throw new TypeError(`pricing[${JSON.stringify(name)}] must be { input, output, cachedInput?, cacheWrite? }`);
    }
    for (const field of PRICE_FIELDS) {
      const value = (price as Record<string, unknown>)[field];
      if (value === undefined && (field === "cachedInput" || field === "cacheWrite")) continue;
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw new RangeError(
          `pricing[${JSON.stringify(name)}].${field} must be USD per 1M tokens, a finite number 0 or more; got ${shown(value)}`,
        );
      }
    }
  }
  return pricing as Pricing;
}

/**
 * The prices and the cost budget a run logs: each model it may call (its own, the fallbacks, the
 * summarizer when it summarizes) priced by name. Nothing without `pricing`. Throws, before the run,
 * for bad prices, a bad `costBudget`, a `costBudget` without `pricing`, and a `costBudget` when a
 * model the run may call has no price (the cost would be a guess).
 */
export function resolvePrices(
  options: PricingOptions,
  model: Model,
): Pick<RunSettings, "pricing" | "prices" | "costBudget"> {
  const { pricing, costBudget } = options;
  const budget = checkCostBudget(costBudget);
  if (pricing === undefined) {
    if (budget !== undefined) throw new RangeError("costBudget needs pricing: the price of each model the run calls");
    return {};
  }
  const checked = checkPricing(pricing);
  const priced = (each: Model): PricedModel => {
    const name = modelNameOf(each);
    return { name, price: priceOf(checked, name) };
  };
  const fallbacks = Array.isArray(options.fallbackModels) ? options.fallbackModels : [];
  const { compaction } = options;
  const summarizes = compaction !== undefined && (compaction.strategy ?? "summarize") === "summarize";
  const prices: RunPrices = {
    models: [model, ...fallbacks].map(priced),
    ...(summarizes ? { summarizer: priced(compaction.summarizer ?? model) } : {}),
  };
  if (budget !== undefined) {
    const missing = unpricedNames(pricedModels(prices));
    if (missing.length > 0) throw new RangeError(costBudgetRefusal(missing));
  }
  return { pricing: checked, prices, ...(budget === undefined ? {} : { costBudget: budget }) };
}

/** The one line that refuses a `costBudget` for models with no price. */
export function costBudgetRefusal(names: readonly string[]): string {
  return `costBudget needs a price for every model the run may call, and pricing has none (nor a "default") for ${names.join(", ")}`;
}

/** `costBudget` checked: USD, finite and 0 or more; `Infinity` (or absent) is no budget. */
function checkCostBudget(value: unknown): number | undefined {
  if (value === undefined || value === Number.POSITIVE_INFINITY) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new RangeError(`costBudget must be USD, a number 0 or more, or Infinity; got ${shown(value)}`);
  }
  return value;
}

function shown(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return value !== null && typeof value === "object" ? "an object" : String(value);
}
