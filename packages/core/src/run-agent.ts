import { createActor, toPromise } from "xstate";
import type { AgentOptions } from "./agent-context.js";
import { agentMachine } from "./agent-machine.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { AgentResult, Model } from "./types.js";

/**
 * Runs `task` to an exit: a final answer (`done`), `maxSteps` model calls (`step_limit`), or a
 * prompt that would overspend `tokenBudget` (`token_budget`), always with the whole message list.
 * Rejects with `ModelError` when the model fails, and with a `RangeError` for impossible limits.
 */
export async function runAgent(
  task: string,
  model: Model,
  registry: ToolRegistry,
  options: AgentOptions = {},
): Promise<AgentResult> {
  const actor = createActor(agentMachine, { input: { ...options, task, model, registry } });
  const result = toPromise(actor);
  actor.start();
  return result;
}
