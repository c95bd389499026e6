import { checkRunOptions } from "@agentloop/core/machine";
import type { AgentWorkflowOptions } from "./agent-workflow.js";

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Checks a workflow's options that no run could fix; throws a `RangeError` (the same sentences as `runAgent`'s). */
export function checkLimits({ name, toolTimeoutMs, maxResultChars }: AgentWorkflowOptions): void {
  if (name !== undefined && !NAME_PATTERN.test(name)) {
    throw new RangeError(`name must start with a letter or '_' and hold letters, digits, '_', '.', '-'; got '${name}'`);
  }
  checkRunOptions({ toolTimeoutMs, maxResultChars });
}
