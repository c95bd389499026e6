/** The options an agent workflow runs; any other one (`output`, `guardrails`, `retry`, ...) is refused. */
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
]);

/**
 * Refuses, in one line naming each, every option given to `agentWorkflow` that a durable run does
 * not apply, so that none is silently ignored: `runAgent`'s `output`, `outputRetries`,
 * `guardrails`, `retry`, `fallbackModels` and `compaction.summarizer` (a summary is written by the
 * workflow's `model`), the in-process listeners and signal, and any name it does not know.
 * Given `undefined`, an option counts as not given.
 */
export function checkApplied(options: object): void {
  const refused = Object.entries(options).flatMap(([name, value]) =>
    value === undefined || APPLIED.has(name) ? [] : [name],
  );
  const { compaction } = options as { compaction?: { summarizer?: unknown } };
  if (typeof compaction === "object" && compaction !== null && compaction.summarizer !== undefined) {
    refused.push("compaction.summarizer");
  }
  if (refused.length === 0) return;
  throw new TypeError(
    `agentWorkflow cannot take ${refused.join(", ")}: a Restate run does not apply ${refused.length === 1 ? "it" : "them"} yet (see the README's "Options" for what it runs)`,
  );
}
