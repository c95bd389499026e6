import type { RunOptions } from "./run-agent.js";

/**
 * What an agent actor's input may hold: the task, the model and tools, and every option of
 * `runAgent` but the signal and a spending ceiling. A record over those names, so that an option
 * `runAgent` gains and this does not name fails to compile.
 */
const INPUT: Readonly<Record<keyof Omit<RunOptions, "signal" | "ceiling"> | "task" | "model" | "registry", true>> = {
  task: true,
  model: true,
  registry: true,
  system: true,
  name: true,
  history: true,
  maxSteps: true,
  tokenBudget: true,
  replyReserve: true,
  repeatLimit: true,
  onRepeatedCall: true,
  toolConcurrency: true,
  compaction: true,
  retry: true,
  fallbackModels: true,
  prepareStep: true,
  pricing: true,
  costBudget: true,
  memory: true,
  output: true,
  outputRetries: true,
  guardrails: true,
  approve: true,
  toolTimeoutMs: true,
  maxResultChars: true,
  store: true,
  runId: true,
  owner: true,
  inspect: true,
  onEvent: true,
  onLogged: true,
};
const TAKEN: ReadonlySet<string> = new Set(Object.keys(INPUT));

/** What `createAgentActor` may provide: the code a restored actor gets again. */
const PROVIDED = new Set(["model", "registry", "store", "approve", "inspect", "onEvent"]);

/**
 * Refuses, in one line naming each, what an agent actor would not apply: `signal` (the actor owns
 * its run's signal: the parent leaving the invoking state, or `agent.cancel`, ends the run),
 * `ceiling` (a restored actor would lose it and spend unheld) and any name it does not know. With `provided`, the names `createAgentActor` can give a restored actor.
 */
export function checkActorOptions(options: object, provided = false): void {
  const known = provided ? PROVIDED : TAKEN;
  const refused = Object.entries(options).flatMap(([name, value]) =>
    value === undefined || known.has(name) ? [] : [name],
  );
  if (refused.length === 0) return;
  const why = refused.includes("signal")
    ? "the actor's run ends when its parent leaves the invoking state or sends agent.cancel"
    : refused.includes("ceiling")
      ? "a ceiling's ledger is code, which an actor restored from a persisted snapshot would go on without, unheld"
      : `it takes ${[...known].join(", ")}`;
  throw new TypeError(`agentActor cannot take ${refused.join(", ")}: ${why}`);
}
