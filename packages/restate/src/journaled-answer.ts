import { ModelError } from "@agentloop/core";
import type { LoopAnswer, ModelAnswer } from "@agentloop/core/driver";

/** A model's failure as a journal entry keeps it: what the run logs of it and decides its retries by. */
interface JournaledFailure {
  readonly type: "model-failed";
  readonly step: number;
  readonly error: { readonly message: string; readonly retryable: boolean; readonly retryAfterMs?: number };
}

/** An answer as a journal entry keeps it (JSON): a failure the run retries itself as its message and retry hints. */
export type JournaledAnswer = Exclude<LoopAnswer, { type: "model-failed" }> | JournaledFailure;

/**
 * The answer to journal. A failure the run does not retry itself is thrown instead, for Restate to
 * retry the step (`modelRetry`); past those retries, the run fails with it.
 */
export function journaledAnswer(answer: LoopAnswer, retriesItself: boolean): JournaledAnswer {
  if (!("error" in answer)) return answer;
  if (answer.type !== "model-failed" || !retriesItself) throw answer.error;
  const { message, retryable, retryAfterMs } = answer.error;
  const error = retryAfterMs === undefined ? { message, retryable } : { message, retryable, retryAfterMs };
  return { type: "model-failed", step: answer.step, error };
}

/** The loop's answer from its journal entry: a model's failure is a `ModelError` again (without the list it was shown). */
export function revivedAnswer(answer: JournaledAnswer): LoopAnswer {
  if (answer.type !== "model-failed") return answer;
  const { step, error } = answer;
  const details = { messages: [], step, retryable: error.retryable };
  const revived = new ModelError(
    error.message,
    error.retryAfterMs === undefined ? details : { ...details, retryAfterMs: error.retryAfterMs },
  );
  return { type: "model-failed", step, error: revived } satisfies ModelAnswer;
}
