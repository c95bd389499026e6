import { ModelError } from "@agentloop/core";
import type { LoopAnswer, ModelFailure } from "@agentloop/core/driver";

/** A model's failure as a journal entry keeps it: its event (the message and retry hints), and the step its error names. */
interface JournaledFailure {
  readonly type: "event";
  readonly event: ModelFailure["event"];
  readonly step: number;
}

/** An answer as a journal entry keeps it (JSON): the event, a failure the run retries itself with its step. */
export type JournaledAnswer = LoopAnswer | JournaledFailure;

/**
 * The answer to journal. A failure the run does not retry itself is thrown instead, for Restate to
 * retry the step (`modelRetry`); past those retries, the run fails with it. A summarizer's failure
 * is thrown too.
 */
export function journaledAnswer(answer: LoopAnswer, retriesItself: boolean): JournaledAnswer {
  if (answer.type === "failed") throw answer.error;
  if (answer.type !== "event") return answer;
  const { event, error } = answer;
  if (error === undefined) return answer.model === undefined ? answer : { type: "event", event };
  if (!retriesItself || event.type !== "model.failed") throw error;
  return { type: "event", event, step: error.step };
}

/** The loop's answer from its journal entry: a model's failure has its `ModelError` again (without the list it was shown). */
export function revivedAnswer(answer: JournaledAnswer): LoopAnswer {
  if (!("step" in answer)) return answer;
  const { event, step } = answer;
  const details = { messages: [], step, retryable: event.retryable };
  const error = new ModelError(
    event.error,
    event.retryAfterMs === undefined ? details : { ...details, retryAfterMs: event.retryAfterMs },
  );
  return { type: "event", event, error } satisfies ModelFailure;
}
