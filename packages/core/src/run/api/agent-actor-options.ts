/** What an agent actor's input may hold: the task, the model and tools, and every option of `runAgent` but the signal. */
const TAKEN = new Set([
  "task",
  "model",
  "registry",
  "system",
  "history",
  "maxSteps",
  "tokenBudget",
  "replyReserve",
  "repeatLimit",
  "onRepeatedCall",
  "toolConcurrency",
  "compaction",
  "retry",
  "fallbackModels",
  "pricing",
  "costBudget",
  "output",
  "outputRetries",
  "guardrails",
  "approve",
  "toolTimeoutMs",
  "maxResultChars",
  "store",
  "runId",
  "inspect",
  "onEvent",
  "onLogged",
]);

/** What `createAgentActor` may provide: the code a restored actor gets again. */
const PROVIDED = new Set(["model", "registry", "store", "approve", "inspect", "onEvent"]);

/**
 * Refuses, in one line naming each, what an agent actor would not apply: `signal` (the actor owns
 * its run's signal: the parent leaving the invoking state, or `agent.cancel`, ends the run) and any
 * name it does not know. With `provided`, the names `createAgentActor` can give a restored actor.
 */
export function checkActorOptions(options: object, provided = false): void {
  const known = provided ? PROVIDED : TAKEN;
  const refused = Object.entries(options).flatMap(([name, value]) =>
    value === undefined || known.has(name) ? [] : [name],
  );
  if (refused.length === 0) return;
  const why = refused.includes("signal")
    ? "the actor's run ends when its parent leaves the invoking state or sends agent.cancel"
    : `it takes ${[...known].join(", ")}`;
  throw new TypeError(`agentActor cannot take ${refused.join(", ")}: ${why}`);
}
