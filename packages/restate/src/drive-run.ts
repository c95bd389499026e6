import type { AgentResult } from "@agentloop/core";
import { CancelledError, RestatePromise, type WorkflowContext } from "@restatedev/restate-sdk";
import { isMachineEvent, type MachinePosition, type RunEvent, type RunMachine } from "./core-port.js";
import { type Effects, type PendingStep, type StepOutcome, startStep } from "./effect-steps.js";
import type { RunLog } from "./run-log.js";
import type { CancelRecord, RunStatus } from "./types.js";

/** The name of the durable promise that `cancel` resolves. */
export const CANCEL_PROMISE = "cancel";

/**
 * Drives the machine inside the workflow until it reaches a final state: every request it emits
 * becomes a journaled step, and however many steps are outstanding, one `RestatePromise.race` over
 * all of them (and the cancellation) takes the next outcome. Restate replays a race in the order
 * its journal recorded the completions, so a retried execution hands the machine the same events
 * in the same order and asks for the same steps; its journaled results come back without calling
 * anything. Each event is logged before the machine sees it.
 */
export async function driveRun(
  ctx: WorkflowContext,
  machine: RunMachine,
  effects: Effects,
  log: RunLog,
): Promise<AgentResult> {
  const pending = new Map<string, PendingStep>();
  const cancelled = ctx
    .promise<CancelRecord>(CANCEL_PROMISE)
    .get()
    .map((record, failure): StepOutcome => {
      if (failure !== undefined) throw failure;
      const { reason, at } = record as CancelRecord;
      const event: RunEvent = reason === undefined ? { type: "run.cancelled" } : { type: "run.cancelled", reason };
      return { key: CANCEL_PROMISE, events: [{ event, at }] };
    });
  for (;;) {
    for (const keyed of machine.takeRequests()) pending.set(keyed.key, startStep(ctx, keyed, effects));
    const result = machine.result();
    if (result !== null) return result;
    const position = machine.position();
    log.setStatus(statusOf(ctx.key, position, pending, log.length), position.decisionKeys);
    if (pending.size === 0) throw new Error("agentloop/restate: the machine waits for nothing (a broken invariant)");
    const outcome = await nextOutcome(ctx, pending, cancelled);
    pending.delete(outcome.key);
    if (outcome.next !== undefined) pending.set(outcome.key, outcome.next());
    for (const { event, at } of outcome.events) {
      await log.append(event, at);
      if (isMachineEvent(event)) machine.send(event);
    }
  }
}

/** The first outcome of the outstanding steps; a cancellation through Restate itself is a `run.cancelled` too. */
async function nextOutcome(
  ctx: WorkflowContext,
  pending: ReadonlyMap<string, PendingStep>,
  cancelled: RestatePromise<StepOutcome>,
): Promise<StepOutcome> {
  try {
    return await RestatePromise.race([...Array.from(pending.values(), (step) => step.outcome), cancelled]);
  } catch (error) {
    if (!(error instanceof CancelledError)) throw error;
    const event: RunEvent = { type: "run.cancelled", reason: "the invocation was cancelled in Restate" };
    return { key: CANCEL_PROMISE, events: [{ event, at: await ctx.date.toJSON() }] };
  }
}

/** The status of a live run. */
function statusOf(
  runId: string,
  position: MachinePosition,
  pending: ReadonlyMap<string, PendingStep>,
  events: number,
): RunStatus {
  const steps = [...pending.values()];
  const runningTools = steps.flatMap((step) => (step.running === null ? [] : [step.running]));
  const left = new Set(steps.flatMap((step) => (step.deciding === undefined ? [] : [step.deciding.id])));
  const awaitingDecision = position.awaitingDecision.filter((call) => left.has(call.id));
  return {
    runId,
    phase: position.waitsForDecision && awaitingDecision.length > 0 ? "awaiting_approval" : "running",
    state: position.state,
    steps: position.steps,
    tokens: position.tokens,
    events,
    awaitingDecision,
    runningTools,
    result: null,
    error: null,
  };
}
