import type { AgentRequest, PendingQuestion, ToolCall, ToolPaused, ToolResumed } from "../data/index.js";
import type { AgentContext, PausedCall } from "./agent-context.js";
import { isAskingCall, runToolRequest } from "./tool-asks.js";

/**
 * Agent tools' calls whose child paused as decisions: the call keeps its place in the batch (in
 * progress, so the calls after it wait their turn and tool messages keep call order) and waits,
 * paused in its child, with what waits below it (`tool.paused`), asking to be resumed
 * (`resumeChild`); `tool.resumed` makes it run again, and its child goes on from its own log. The
 * run waits for these as for its own: a decision below makes it `awaiting_approval`, questions
 * only `awaiting_input`.
 */

/** Whether call `callId` is paused in its child. */
export function isPausedCall({ childPauses }: Pick<AgentContext, "childPauses">, callId: string): boolean {
  return childPauses.some((paused) => paused.callId === callId);
}

/** Whether `tool.paused` is for a call that runs now (not one that asked a question, nor one paused already). */
export function isPauseFromRunningCall(context: AgentContext, event: ToolPaused): boolean {
  const { batch } = context;
  if (batch === null || batch.find(event.callId, "running") < 0) return false;
  return !isAskingCall(context, event.callId) && !isPausedCall(context, event.callId);
}

/** Whether `tool.resumed` is for a call paused in its child. */
export function isResumeOfPausedCall(context: AgentContext, event: ToolResumed): boolean {
  return context.batch !== null && isPausedCall(context, event.callId);
}

/** Records what the call's child waits on, and asks for the call to be resumed once a decision or an answer for it comes. */
export function recordPause(
  context: AgentContext,
  event: ToolPaused,
): { changes: Partial<AgentContext>; requests: AgentRequest[] } {
  const paused: PausedCall = { callId: event.callId, pending: event.pending, questions: event.questions };
  const childPauses = [...context.childPauses, paused];
  return { changes: { childPauses }, requests: [resumeChildRequest(callOf(context, event.callId), paused)] };
}

/** The call runs again (`runTool`): its child goes on from its own log with what was given for it. */
export function recordResume(
  context: AgentContext,
  event: ToolResumed,
): { changes: Partial<AgentContext>; requests: AgentRequest[] } {
  const childPauses = context.childPauses.filter((paused) => paused.callId !== event.callId);
  return { changes: { childPauses }, requests: [runToolRequest(context, callOf(context, event.callId))] };
}

/** The request a paused call waits on, for a snapshot's pending requests. */
export function pausedRequest({ childPauses }: Pick<AgentContext, "childPauses">, call: ToolCall): AgentRequest {
  return resumeChildRequest(call, childPauses.find((paused) => paused.callId === call.id) as PausedCall);
}

/** Whether a paused child waits for a decision (not only for answers). */
export function isChildDecisionAwaited({ childPauses }: Pick<AgentContext, "childPauses">): boolean {
  return childPauses.some((paused) => paused.pending.length > 0);
}

/** The calls the paused children wait on, with chained ids, in the order the children paused. */
export function childPending({ childPauses }: Pick<AgentContext, "childPauses">): ToolCall[] {
  return childPauses.flatMap((paused) => paused.pending);
}

/** The questions the paused children wait on, with chained ids, in the order the children paused. */
export function childQuestions({ childPauses }: Pick<AgentContext, "childPauses">): PendingQuestion[] {
  return childPauses.flatMap((paused) => paused.questions);
}

function resumeChildRequest(call: ToolCall, paused: PausedCall): AgentRequest {
  return { type: "resumeChild", call, pending: paused.pending, questions: paused.questions };
}

function callOf(context: AgentContext, callId: string): ToolCall {
  const batch = context.batch as NonNullable<AgentContext["batch"]>;
  return batch.calls[batch.find(callId, "running")] as ToolCall;
}
