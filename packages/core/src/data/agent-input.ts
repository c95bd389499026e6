import { isPlainObject } from "./is-plain-object.js";

/** The data part of an agent actor's input, as kept in its persisted snapshot: JSON, with `Infinity` spelled out. */
export type AgentInputData = Readonly<Record<string, unknown>>;

/** The limits: numbers, where `Infinity` (which JSON would turn into `null`) means no limit. */
const LIMIT_KEYS: ReadonlySet<string> = new Set([
  "maxSteps",
  "tokenBudget",
  "costBudget",
  "replyReserve",
  "repeatLimit",
  "toolConcurrency",
  "toolTimeoutMs",
  "maxResultChars",
]);

/**
 * Splits an input into its data (the task, the run id, the limits: what JSON keeps, so a
 * persisted snapshot holds it) and its code (the model, the registry, the store, functions: what
 * a restore in another process has to be given again).
 */
export function splitInput(input: Readonly<Record<string, unknown>>): {
  data: AgentInputData;
  code: Readonly<Record<string, unknown>>;
} {
  const data: Record<string, unknown> = {};
  const code: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (value === Number.POSITIVE_INFINITY && LIMIT_KEYS.has(key)) data[key] = "Infinity";
    else if (isData(value)) data[key] = value;
    else code[key] = value;
  }
  return { data, code };
}

/** The input's data back from a persisted snapshot: a limit's `"Infinity"` is the number again. */
export function reviveData(data: AgentInputData): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    input[key] = value === "Infinity" && LIMIT_KEYS.has(key) ? Number.POSITIVE_INFINITY : value;
  }
  return input;
}

/** Whether JSON keeps the value as it is: finite numbers, strings, booleans, null, and arrays and plain objects of them. */
function isData(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isData);
  return isPlainObject(value) && Object.values(value).every(isData);
}
