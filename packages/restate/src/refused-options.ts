import { ToolRegistry } from "@agentloop/core";
import { hasChildTools } from "@agentloop/core/driver";

/** The options an agent workflow runs; any other one (the in-process listeners, the signal, ...) is refused. */
const APPLIED = new Set([
  "name",
  "model",
  "registry",
  "store",
  "approve",
  "modelRetry",
  "saveEventsEvery",
  "restate",
  "toolTimeoutMs",
  "maxResultChars",
  "system",
  "history",
  "maxSteps",
  "tokenBudget",
  "replyReserve",
  "repeatLimit",
  "onRepeatedCall",
  "toolConcurrency",
  "compaction",
  "output",
  "outputRetries",
  "guardrails",
  "retry",
  "fallbackModels",
  "prepareStep",
  "pricing",
  "costBudget",
]);

/**
 * Refuses, in one line naming each, every option given to `agentWorkflow` that a durable run does
 * not apply, so that none is silently ignored: the in-process listeners and signal, any name it
 * does not know, and agent tools in its registry (a child run is not a workflow of its own yet).
 * Given `undefined`, an option counts as not given.
 */
export function checkApplied(options: object): void {
  const refused = Object.entries(options).flatMap(([name, value]) =>
    value === undefined || APPLIED.has(name) ? [] : [name],
  );
  const { registry } = options as { registry?: unknown };
  if (registry instanceof ToolRegistry && hasChildTools(registry)) refused.push("agent tools");
  if (refused.length === 0) return;
  throw new TypeError(
    `agentWorkflow cannot take ${refused.join(", ")}: a Restate run does not apply ${refused.length === 1 ? "it" : "them"} yet (see the README's "Options" for what it runs)`,
  );
}
