import type { ToolCall } from "@agentloop/core";
import type { MachinePosition } from "./core-port.js";
import type { RunStatus } from "./types.js";

/** A journaled step as the status sees it: the call it runs, or the call it waits for `decide` on. */
export interface StepView {
  readonly running: ToolCall | null;
  readonly deciding?: ToolCall;
}

/** The status of a live run: where the machine stands, the tools running, and the calls waiting for `decide`. */
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
