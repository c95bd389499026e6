import type { AgentWorkflowOptions } from "./agent-workflow.js";

/** Milliseconds a timer can wait: setTimeout fires at once for anything longer. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Checks a workflow's options that no run could fix; throws a `RangeError` (the same sentences as `runAgent`'s). */
export function checkLimits({ name, toolTimeoutMs, maxResultChars }: AgentWorkflowOptions): void {
  if (name !== undefined && !NAME_PATTERN.test(name)) {
    throw new RangeError(`name must start with a letter or '_' and hold letters, digits, '_', '.', '-'; got '${name}'`);
  }
  const isTimeout = (value: number) => value === Number.POSITIVE_INFINITY || (value > 0 && value <= MAX_TIMER_MS);
  if (toolTimeoutMs !== undefined && !isTimeout(toolTimeoutMs)) {
    throw new RangeError(
      `toolTimeoutMs must be milliseconds above 0 and at most ${MAX_TIMER_MS}, or Infinity; got ${toolTimeoutMs}`,
    );
  }
  const isCharLimit = (value: number) =>
    value === Number.POSITIVE_INFINITY || (Number.isSafeInteger(value) && value > 0);
  if (maxResultChars !== undefined && !isCharLimit(maxResultChars)) {
    throw new RangeError(`maxResultChars must be a whole number above 0, or Infinity; got ${maxResultChars}`);
  }
}
