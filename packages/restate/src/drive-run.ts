import { type AgentResult, ModelError } from "@agentloop/core";
import { type EffectPorts, RunLoop } from "@agentloop/core/driver";
import { TerminalError, type WorkflowContext } from "@restatedev/restate-sdk";
import type { KeyedMachine, ModelWithLimits, ToolLimits } from "./core-port.js";
import { JournaledSteps, type StepPorts } from "./journaled-steps.js";
import type { RunLog } from "./run-log.js";

/**
 * What the run reaches: the models, the tools, the approval policy, the answer's checks, the
 * model's retries, and the tools' limits, as core's run loop takes them. `prepareStep`'s decision
 * is journaled, so a retried execution never asks it again.
 */
export interface RunPorts
  extends StepPorts,
    ToolLimits,
    Pick<EffectPorts, "checks" | "fallbackModels" | "summarizer" | "prepareStep"> {
  readonly model: ModelWithLimits;
}

/**
 * Drives the machine inside the workflow until it reaches a final state, with core's own run loop
 * and performers: every request is journaled in its durable form (`JournaledSteps`), every event is
 * logged before the machine sees it. When Restate ends this execution attempt, the loop stops and
 * the model and the tools are aborted; a retried execution replays the journal to the same point.
 */
export async function driveRun(
  ctx: WorkflowContext,
  machine: KeyedMachine,
  ports: RunPorts,
  log: RunLog,
): Promise<{ readonly result: AgentResult; readonly at: string }> {
  const { model, fallbackModels, summarizer, checks, registry, approve, prepareStep, toolTimeoutMs, maxResultChars } =
    ports;
  const steps = new JournaledSteps(ctx, machine, log, ports);
  const limits = { toolTimeoutMs, maxResultChars };
  const models = { model, fallbackModels, summarizer };
  const { children } = ports;
  const effects = {
    ...models,
    registry,
    approve,
    prepareStep,
    checks,
    ...limits,
    children,
    journal: steps,
    performing: steps,
  };
  const loop = new RunLoop(machine.driven, effects, steps.interrupted);
  const attempt = ctx.request().attemptCompletedSignal;
  const stop = () => loop.stop();
  attempt.addEventListener("abort", stop, { once: true });
  try {
    const outcome = await loop.run();
    if (outcome.type === "ended") return { result: outcome.result, at: steps.lastAt };
    // A paused loop would need a call left undecided; here every such call waits for `decide`.
    throw new Error(`agentloop/restate: the run loop ${outcome.type} before the machine ended`);
  } catch (error) {
    // The run's own retries gave up (logged as `model.failed`): retrying the execution would replay the same.
    if (ModelError.isInstance(error)) throw new TerminalError(error.message);
    throw error;
  } finally {
    attempt.removeEventListener("abort", stop);
  }
}
