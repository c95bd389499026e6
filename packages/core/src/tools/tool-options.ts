import { describeValue, isPlainObject, ToolSchemaError } from "../data/index.js";
import { isCharLimit } from "./cut-result.js";
import { isTimeout, MAX_TIMER_MS } from "./run-guarded.js";

/** How the harness may treat a tool beyond its schema. */
export interface ToolOptions {
  /**
   * Running it twice with the same arguments does no more than running it once. Only such a tool
   * is run again when a resumed run finds that the process died while it ran (default false).
   */
  readonly idempotent?: boolean;
  /**
   * It may be called again and again with the same arguments (paging, polling, random) without
   * the repeated-call guard refusing it (default false).
   */
  readonly repeatable?: boolean;
  /** The tool runs only after a decision: an approver's, or one given to `resumeAgent` (default false). */
  readonly needsApproval?: boolean;
  /** Milliseconds it may take, overriding the run's `toolTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Its observations longer than this are cut, overriding the run's `maxResultChars`. */
  readonly maxResultChars?: number;
}

/** The names of every tool option, in the order they are checked. */
export const TOOL_OPTION_KEYS: readonly (keyof ToolOptions)[] = [
  "idempotent",
  "repeatable",
  "needsApproval",
  "timeoutMs",
  "maxResultChars",
];

/** The options `value` holds, checked and copied; throws `ToolSchemaError` for a value of the wrong kind or (with `strict`) an unknown key. */
export function checkOptions(name: string, value: unknown, strict: boolean): ToolOptions {
  if (!isPlainObject(value)) throw new ToolSchemaError(`${name}: options must be an object`);
  if (strict) {
    const unknown = Object.keys(value).find((key) => !(TOOL_OPTION_KEYS as readonly string[]).includes(key));
    if (unknown !== undefined) {
      throw new ToolSchemaError(`${name}: unknown option '${unknown}' (known: ${TOOL_OPTION_KEYS.join(", ")})`);
    }
  }
  const options: Record<string, unknown> = {};
  for (const key of TOOL_OPTION_KEYS) {
    const option: unknown = value[key];
    if (option === undefined) continue;
    const problem = problemOf(key, option);
    if (problem !== null) throw new ToolSchemaError(`${name}: ${key} ${problem}; got ${describeValue(option)}`);
    options[key] = option;
  }
  return options as ToolOptions;
}

function problemOf(key: keyof ToolOptions, value: unknown): string | null {
  switch (key) {
    case "timeoutMs":
      return typeof value === "number" && isTimeout(value)
        ? null
        : `must be milliseconds above 0 and at most ${MAX_TIMER_MS}, or Infinity`;
    case "maxResultChars":
      return typeof value === "number" && isCharLimit(value) ? null : "must be a whole number above 0";
    default:
      return typeof value === "boolean" ? null : "must be true or false";
  }
}
