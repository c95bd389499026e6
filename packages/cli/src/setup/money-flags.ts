import { readFileSync } from "node:fs";
import { UsageError } from "../cli-error.js";
import { checkPricing, type RunOptions } from "../core-api.js";

/** The `run` flags of money, as `parseArgs` declares them. */
export const MONEY_FLAGS = {
  pricing: { type: "string" },
  "cost-budget": { type: "string" },
} as const;

/** Help lines for `MONEY_FLAGS`. */
export const MONEY_HELP = `  --pricing <file.json>    prices by model name, USD per 1M tokens: { "<model>": { "input": 3, "output": 15,
                           "cachedInput": 0.3, "cacheWrite": 3.75 } } ("default" prices any other model);
                           each reply gets a cost and the run a total (show, list and the report show it)
  --cost-budget <usd>      USD allowed, checked before each model call (needs --pricing with a price for
                           every model the run calls); a run stopped by it ends cost_budget`;

/** The `runAgent` options the money flags ask for (only those given); a bad value or file is a `UsageError` in one line. */
export function moneyOptionsOf(values: {
  readonly pricing?: string | undefined;
  readonly "cost-budget"?: string | undefined;
}): Pick<RunOptions, "pricing" | "costBudget"> {
  const costBudget = usdOf(values["cost-budget"]);
  if (costBudget !== undefined && values.pricing === undefined) {
    throw new UsageError("--cost-budget needs --pricing <file.json>: the price of each model the run calls");
  }
  return {
    ...(values.pricing === undefined ? {} : { pricing: pricingFile(values.pricing) }),
    ...(costBudget === undefined ? {} : { costBudget }),
  };
}

function usdOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(text) || !Number.isFinite(value)) {
    throw new UsageError(`--cost-budget must be USD, a number 0 or more such as 0.50; got '${text}'`);
  }
  return value;
}

/** The pricing a file holds, checked as `runAgent` checks it. */
function pricingFile(file: string): NonNullable<RunOptions["pricing"]> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(`--pricing: cannot read ${file}${typeof code === "string" ? ` (${code})` : ""}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--pricing: ${file} is not JSON (${(error as Error).message})`);
  }
  try {
    return checkPricing(parsed);
  } catch (error) {
    throw new UsageError(`--pricing: ${file}: ${(error as Error).message}`);
  }
}
