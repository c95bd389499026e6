import { checkRunOptions } from "@agentloop/core/machine";
import type { AgentWorkflowOptions } from "./workflow-options.js";

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Checks a workflow's options that no run could fix; throws a `RangeError` (the same sentences as `runAgent`'s). */
export function checkLimits({ name, toolTimeoutMs, maxResultChars, saveEventsEvery }: AgentWorkflowOptions): void {
  if (name !== undefined && !NAME_PATTERN.test(name)) {
    throw new RangeError(`name must start with a letter or '_' and hold letters, digits, '_', '.', '-'; got '${name}'`);
  }
  if (saveEventsEvery !== undefined && !(Number.isInteger(saveEventsEvery) && saveEventsEvery >= 1)) {
    throw new RangeError(`saveEventsEvery must be a whole number of events, 1 or more; got ${saveEventsEvery}`);
  }
  checkRunOptions({ toolTimeoutMs, maxResultChars });
}
