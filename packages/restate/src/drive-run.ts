import type { AgentResult } from "@agentloop/core";
import { RunLoop } from "@agentloop/core/driver";
import type { WorkflowContext } from "@restatedev/restate-sdk";
import type { KeyedMachine, ModelWithLimits, ToolLimits } from "./core-port.js";
import { JournaledSteps, type StepPorts } from "./journaled-steps.js";
import type { RunLog } from "./run-log.js";

/** What the run reaches: the model, the tools, the approval policy and the model's retries, and the tools' limits. */
export interface RunPorts extends StepPorts, ToolLimits {
  readonly model: ModelWithLimits;
}

/**
 * Drives the machine inside the workflow until it reaches a final state, with core's own run loop
 * and performers: every request becomes a journaled step (`JournaledSteps`), every event is
 * logged before the machine sees it. When Restate ends this execution attempt, the loop stops and
 * the model and the tools are aborted; a retried execution replays the journal to the same point.
 */
export async function driveRun(
  ctx: WorkflowContext,
  machine: KeyedMachine,
  ports: RunPorts,
  log: RunLog,
): Promise<{ readonly result: AgentResult; readonly at: string }> {
  const { model, registry, approve, toolTimeoutMs, maxResultChars } = ports;
  const steps = new JournaledSteps(ctx, machine, log, ports);
  const effects = { model, registry, approve, toolTimeoutMs, maxResultChars, journal: steps, performing: steps };
  const loop = new RunLoop(machine.driven, effects, steps.interrupted);
  const attempt = ctx.request().attemptCompletedSignal;
  const stop = () => loop.stop();
  attempt.addEventListener("abort", stop, { once: true });
  try {
    const outcome = await loop.run();
    if (outcome.type === "ended") return { result: outcome.result, at: steps.lastAt };
    // A paused loop would need a call left undecided; here every such call waits for `decide`.
    throw new Error(`agentloop/restate: the run loop ${outcome.type} before the machine ended`);
  } finally {
    attempt.removeEventListener("abort", stop);
  }
}
