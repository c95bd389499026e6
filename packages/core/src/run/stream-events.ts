import type {
  AgentResult,
  ContentPart,
  Decision,
  GuardrailChecked,
  GuardrailStage,
  ModelDelta,
  ModelFailed,
  ModelReply,
  OutputChecked,
  ToolCall,
} from "../data/index.js";

/**
 * What a run tells as it goes (`runAgent`'s `onEvent`, `streamAgent`'s iteration): each model
 * call's start, the deltas it streams and its reply; each failed attempt and the wait before the
 * next one (with `retry` or `fallbackModels`); each compaction of what the model is shown;
 * each tool call's start and result; each decision asked for and given; each answer's check
 * against `output`; each guardrail's start and verdict; and last the result. Everything but the deltas is told once it
 * is logged; deltas are only shown, never logged (the reply they add up to is).
 *
 * A run with agent tools also tells every event of its children (at any depth) as they happen,
 * each with `origin` naming the child it comes from; the run's own events have no `origin`.
 */
export type AgentStreamEvent = OwnStreamEvent & { readonly origin?: EventOrigin };

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
  | { readonly type: "step-started"; readonly step: number }
  | (ModelDelta & { readonly step: number })
  | { readonly type: "step-finished"; readonly step: number; readonly reply: ModelReply }
  /** An attempt at model call `step` failed, as logged; the next attempt (the same step) follows, or the run rejects. */
  | { readonly type: "model-failed"; readonly step: number; readonly failure: ModelFailed }
  /** The run waits `delayMs` milliseconds (jitter applied) before it asks the same model again for call `step`. */
  | { readonly type: "retry-waiting"; readonly step: number; readonly delayMs: number }
  /** From model call `step` on, the messages before `keptFrom` (after the task) are hidden; `summary` stands for them. */
  | { readonly type: "compacted"; readonly step: number; readonly keptFrom: number; readonly summary?: string }
  | { readonly type: "tool-started"; readonly call: ToolCall }
  /** A call's observation; when the tool returned parts, `content` is their text (`contentText`) and `parts` the parts. */
  | {
      readonly type: "tool-finished";
      readonly call: ToolCall;
      readonly content: string;
      readonly isError: boolean;
      readonly parts?: readonly ContentPart[];
    }
  | { readonly type: "decision-requested"; readonly call: ToolCall }
  | { readonly type: "decision-given"; readonly call: ToolCall; readonly decision: Decision }
  | { readonly type: "output-checked"; readonly verdict: OutputChecked }
  | { readonly type: "guardrail-started"; readonly stage: GuardrailStage; readonly name: string }
  | { readonly type: "guardrail-checked"; readonly verdict: GuardrailChecked }
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
