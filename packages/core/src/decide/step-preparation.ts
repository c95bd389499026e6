import type { AgentRequest, StepPrepared } from "../data/index.js";
import { countTokens } from "../data/index.js";
import { type AgentContext, currentPrepared, type PreparedStep } from "./agent-context.js";

/**
 * `prepareStep` as decisions: before each model call (after the step limit and compaction, before
 * the budget check, which then reserves for the model it picked and counts only the tools it
 * offers) the machine asks for the step's settings, once per step; the answer is logged as
 * `step.prepared`, so a replayed run never asks again.
 */

/** Whether the next model call still waits for `prepareStep`'s decision. */
export function needsPreparing(context: AgentContext): boolean {
  return context.prepareSteps && currentPrepared(context) === null;
}

/** The request that asks `prepareStep` about the next model call. */
export function preparationRequest(context: AgentContext): AgentRequest {
  return { type: "prepareStep", step: context.steps + 1, transcript: context.transcript, tokens: context.tokens };
}

/** Whether `step.prepared` is for the model call about to be made, which waits for it. */
export function isPlannedPreparation(context: AgentContext, event: StepPrepared): boolean {
  return event.step === context.steps + 1 && needsPreparing(context);
}

/**
 * Whether the next model call asks `prepareStep` first, in its own performance: its first
 * attempt (the attempts kept are an earlier step's, or none), not yet prepared. A step over the
 * budget at the run's settings waits in `preparingStep` instead, since what the step offers may
 * bring it under.
 */
export function preparesInCall(context: AgentContext): boolean {
  const { attempt } = context;
  return (attempt === null || attempt.step !== context.steps + 1) && needsPreparing(context);
}

/** Keeps the decision, with the offered specs and their tokens computed once. */
export function recordPreparation(context: AgentContext, event: StepPrepared): Pick<AgentContext, "prepared"> {
  const { activeTools, toolChoice, system } = event;
  // `none` offers the tools (a provider keeps its cached prefix) but lets the model call none of them.
  const allowed = toolChoice === "none" ? new Set<string>() : activeTools === undefined ? null : new Set(activeTools);
  const offered = activeTools === undefined ? null : new Set(activeTools);
  const specs = offered === null ? context.specs : context.specs.filter((spec) => offered.has(spec.name));
  const prepared: PreparedStep = {
    event,
    specs,
    specsTokens: activeTools === undefined ? context.specsTokens : countTokens(specs),
    systemTokens: system === undefined ? 0 : countTokens(system),
    allowed,
  };
  return { prepared };
}

/** The names the model may call in the next model call, or null when it may call any tool. */
export function allowedTools(context: AgentContext): ReadonlySet<string> | null {
  return currentPrepared(context)?.allowed ?? null;
}
