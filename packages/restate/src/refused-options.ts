import { ToolRegistry } from "@agentloop/core";
import { childToolOf } from "@agentloop/core/driver";
import { RUN_OPTIONS } from "./run-request.js";

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
  ...RUN_OPTIONS,
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
 * does not know, and the `timeoutMs` of an agent tool (a child workflow is not cut off by a clock).
 * Given `undefined`, an option counts as not given.
 */
export function checkApplied(options: object): void {
  const refused = Object.entries(options).flatMap(([name, value]) =>
    value === undefined || APPLIED.has(name) ? [] : [name],
  );
  const { registry } = options as { registry?: unknown };
  if (registry instanceof ToolRegistry) refused.push(...timedAgentTools(registry));
  if (refused.length === 0) return;
  throw new TypeError(
    `agentWorkflow cannot take ${refused.join(", ")}: a Restate run does not apply ${refused.length === 1 ? "it" : "them"} yet (see the README's "Options" for what it runs)`,
  );
}

/** The agent tools of a registry's tree that set a `timeoutMs`, each as `timeoutMs of agent tool '<name>'`. */
function timedAgentTools(registry: ToolRegistry, seen = new Set<ToolRegistry>()): string[] {
  if (seen.has(registry)) return [];
  seen.add(registry);
  return registry.specs().flatMap((spec) => {
    const child = childToolOf(registry, spec.name);
    if (child === undefined) return [];
    const own = child.timeoutMs === undefined ? [] : [`timeoutMs of agent tool '${child.name}'`];
    return [...own, ...timedAgentTools(child.agent.registry, seen)];
  });
}
