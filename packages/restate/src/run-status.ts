import type { ToolCall } from "@agentloop/core";
import type { MachinePosition } from "./core-port.js";
import type { RunStatus } from "./types.js";

/** A journaled step as the status sees it: the call it runs, or the call it waits for `decide` or `answer` on. */
export interface StepView {
  readonly running: ToolCall | null;
  readonly deciding?: ToolCall;
}

/** The status of a live run: where the machine stands, the tools running, and the calls waiting for `decide` or `answer`. */
export function statusOf(
  runId: string,
  position: MachinePosition,
  pending: Iterable<StepView>,
  events: number,
): RunStatus {
  const runningTools: ToolCall[] = [];
  const left = new Set<string>();
  for (const step of pending) {
    if (step.running !== null) runningTools.push(step.running);
    if (step.deciding !== undefined) left.add(step.deciding.id);
  }
  const awaitingDecision = position.awaitingDecision.filter((call) => left.has(call.id));
  const pendingQuestions = position.questions.filter((question) => left.has(question.id));
  // As runAgent's pause: approvals (with or without questions) first, questions alone after.
  const waiting =
    awaitingDecision.length > 0 ? "awaiting_approval" : pendingQuestions.length > 0 ? "awaiting_input" : null;
  return {
    runId,
    phase: position.waitsForDecision && waiting !== null ? waiting : "running",
    state: position.state,
    steps: position.steps,
    tokens: position.tokens,
    events,
    awaitingDecision,
    pendingQuestions,
    runningTools,
    result: null,
    error: null,
  };
}
