import { fromPromise } from "xstate";
import { type RunOptions, runAgent } from "./run-agent.js";
import type { ModelWithLimits } from "./settings.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { AgentResult } from "./types.js";

/** What `agentActor` runs: a task, its model and tools, and any option of `runAgent` but the signal. */
export interface AgentActorInput extends Omit<RunOptions, "signal"> {
  readonly task: string;
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
}

/**
 * A whole run as an actor, to invoke from a larger workflow: its output is the `AgentResult`
 * (each status can be a transition of the parent's own), a model failure is the parent's
 * `onError`, and stopping it (the parent leaving the state) cancels the run.
 */
export const agentActor = fromPromise<AgentResult, AgentActorInput>(({ input, signal }) => {
  const { task, model, registry, ...options } = input;
  return runAgent(task, model, registry, { ...options, signal });
});
