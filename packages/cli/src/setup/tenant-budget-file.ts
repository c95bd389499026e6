import { readFileSync } from "node:fs";
import { UsageError } from "../cli-error.js";
import type { Principal, SpendLimits } from "../core-api.js";

/** The `--tenant-budget` flag, as `parseArgs` declares it. */
export const TENANT_BUDGET_FLAG = { "tenant-budget": { type: "string" } } as const;

/** Help lines for `--tenant-budget`. */
export const TENANT_BUDGET_HELP = `  --tenant-budget <file>   spending ceilings per tenant across all their runs, USD per UTC day and
                           month: a JSON file { "<tenant>": { "costPerDay": 5, "costPerMonth": 50 },
                           "*": { "costPerDay": 1 } } ("*": any tenant not named; a tenant with no entry
                           has no ceiling). A turn whose next model call would pass its tenant's
                           ceiling ends cost_budget, naming the ceiling. Needs --authorize and --pricing,
                           and a directory or SQLite store (they keep the spending)`;

const LIMIT_KEYS: readonly (keyof SpendLimits)[] = ["costPerDay", "costPerMonth"];

/**
 * The ceilings a `--tenant-budget` file holds, as `ServeOptions.tenantBudget`: the principal's
 * tenant's entry, else the `"*"` entry, else none. A file that cannot be read, is not JSON, or has
 * an entry that is not `{ costPerDay?, costPerMonth? }` of USD amounts is a `UsageError` naming the
 * file and the entry.
 */
export function tenantBudgetFile(file: string): (principal: Principal) => SpendLimits | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(`--tenant-budget: cannot read ${file}${typeof code === "string" ? ` (${code})` : ""}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--tenant-budget: ${file} is not JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`--tenant-budget: ${file} must be an object of tenants: { "<tenant>": { "costPerDay": 5 } }`);
  }
  const budgets = new Map<string, SpendLimits>();
  for (const [tenant, entry] of Object.entries(parsed)) {
    budgets.set(tenant, limitsOf(file, tenant, entry));
  }
  return (principal) => budgets.get(principal.tenant) ?? budgets.get("*");
}

function limitsOf(file: string, tenant: string, entry: unknown): SpendLimits {
  const where = `--tenant-budget: ${file}: the entry '${tenant.slice(0, 100)}'`;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw new UsageError(
      `${where} must be { "costPerDay"?: <usd>, "costPerMonth"?: <usd> }; got ${JSON.stringify(entry)}`,
    );
  }
  const limits: { costPerDay?: number; costPerMonth?: number } = {};
  for (const [key, value] of Object.entries(entry)) {
    if (!(LIMIT_KEYS as readonly string[]).includes(key)) {
      throw new UsageError(`${where} has '${key.slice(0, 100)}': only costPerDay and costPerMonth are ceilings`);
    }
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new UsageError(`${where}: ${key} must be USD, a number 0 or more; got ${JSON.stringify(value)}`);
    }
    limits[key as keyof SpendLimits] = value;
  }
  return limits;
}
