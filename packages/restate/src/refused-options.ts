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
 * not apply, so that none is silently ignored: the in-process listeners and signal, and any name
 * it does not know.
 * Given `undefined`, an option counts as not given.
 */
export function checkApplied(options: object): void {
  const refused = Object.entries(options).flatMap(([name, value]) =>
    value === undefined || APPLIED.has(name) ? [] : [name],
  );
  if (refused.length === 0) return;
  throw new TypeError(
    `agentWorkflow cannot take ${refused.join(", ")}: a Restate run does not apply ${refused.length === 1 ? "it" : "them"} yet (see the README's "Options" for what it runs)`,
  );
}
