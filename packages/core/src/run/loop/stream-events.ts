import type { AgentResult, GuardrailStage, ModelDelta, RunEvent, ToolCall } from "../../data/index.js";

/**
 * What a run tells as it goes (`runAgent`'s `onEvent`, `streamAgent`'s iteration). Every event
 * the run logs is told once, as `logged`, once it is logged and just before the machine takes it
 * (`run.started` or `user.messaged` first, `model.replied`, `tool.started`, `tool.finished`,
 * `approval.decided`, ... and `run.finished` last); a run without a store tells the same events.
 * A kind of its own is kept only for what the log never holds:
 * - `step-started`: a model call starts (its reply or failure is logged);
 * - the model's deltas as they stream (the reply they add up to is logged);
 * - `retry-waiting`: the wait before the next attempt starts (its end, `retry.waited`, is logged);
 * - `decision-requested`: a call waits for a decision (the decision is logged);
 * - `guardrail-started`: a guardrail starts (its verdict is logged);
 * - `finished`: the run's result, last (a paused run logs no end).
 *
 * A run with agent tools also tells every event of its children (at any depth) as they happen,
 * each with `origin` naming the child it comes from; the run's own events have no `origin`.
 */
export type AgentStreamEvent = OwnStreamEvent & { readonly origin?: EventOrigin };

/** An event the run logged, as its stream tells it. */
export type LoggedStreamEvent = Extract<AgentStreamEvent, { readonly type: "logged" }>;

/**
 * Where a child run's event comes from, as a run above it hears it: `callPath` lists the agent tool
 * calls from the listening run down to the child (`["r1"]` for its own call `r1`, `["r1", "s2"]` for
 * the call `s2` of that child), joined with `/` the prefix of the chained ids of the child's waiting
 * calls; `runId` is the child's run id in the store (absent for a run without a store).
 */
export interface EventOrigin {
  readonly callPath: readonly string[];
  readonly runId?: string;
}

/** An event of the run itself, before any `origin`. */
type OwnStreamEvent =
  | { readonly type: "logged"; readonly event: RunEvent }
  /** Model call `step` starts; each attempt of a retried call starts it again. */
  | { readonly type: "step-started"; readonly step: number }
  | (ModelDelta & { readonly step: number })
  /** The run waits `delayMs` milliseconds (jitter applied) before it asks the same model again for call `step`. */
  | { readonly type: "retry-waiting"; readonly step: number; readonly delayMs: number }
  | { readonly type: "decision-requested"; readonly call: ToolCall }
  | { readonly type: "guardrail-started"; readonly stage: GuardrailStage; readonly name: string }
  | { readonly type: "finished"; readonly result: AgentResult };

/** The listener of a child run: tells `listener` each of the child's events with its origin, `callId` first in the path. */
export function originTagging(
  listener: (event: AgentStreamEvent) => void,
  callId: string,
  childRunId: string | undefined,
): (event: AgentStreamEvent) => void {
  return (event) => {
    const below = event.origin;
    // A grandchild's event keeps its own run id; only the path grows by the call above it.
    const runId = below === undefined ? childRunId : below.runId;
    const callPath = [callId, ...(below?.callPath ?? [])];
    listener({ ...event, origin: runId === undefined ? { callPath } : { callPath, runId } });
  };
}
