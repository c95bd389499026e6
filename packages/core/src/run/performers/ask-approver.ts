import type { AgentEvent, Decision, ToolCall } from "../../data/index.js";
import { answerOf, type EventAnswer, UNANSWERED, type Unanswered } from "./event-answer.js";

/**
 * Decides on a call that needs approval. `undefined` (or `null`) means no decision now: the run
 * pauses with status `awaiting_approval` once nothing else is left to do, to be resumed with a
 * decision later.
 */
export type Approver = (call: ToolCall) => Decision | undefined | null | Promise<Decision | undefined | null>;

/** The event that answers a `requestDecision` request. */
export type ApprovalDecided = Extract<AgentEvent, { type: "approval.decided" }>;

/** What asking the approver came to: a decision as the event that answers the request, or none (the call waits). */
export type ApproverAnswer = EventAnswer<ApprovalDecided> | Unanswered;

/**
 * Asks `approve` (none: no decision) for a decision on a call that needs one. Rejects with the
 * approver's own failure, or with a `TypeError` for a decision that is not `{ approved: boolean,
 * reason?: string }`, so that no log holds what its reader refuses.
 */
export async function askApprover(approve: Approver | undefined, call: ToolCall): Promise<ApproverAnswer> {
  const decision: unknown = await approve?.(call);
  if (decision === undefined || decision === null) return UNANSWERED;
  return decidedAnswer(call, decision);
}

/** The answer a decision given for `call` makes; throws a `TypeError` for one that is not `{ approved: boolean, reason?: string }`. */
export function decidedAnswer(call: ToolCall, decision: unknown): EventAnswer<ApprovalDecided> {
  const { approved, reason } = (typeof decision === "object" && decision !== null ? decision : {}) as Record<
    string,
    unknown
  >;
  if (typeof approved !== "boolean" || !(reason === undefined || typeof reason === "string")) {
    throw new TypeError(
      `the approver's decision on call '${call.id}' must be { approved: boolean, reason?: string }; got ${JSON.stringify(decision) ?? String(decision)}`,
    );
  }
  const event = { type: "approval.decided", callId: call.id, approved } as const;
  return answerOf(reason === undefined ? event : { ...event, reason });
}
