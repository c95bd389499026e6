import type { AgentRequest, ModelFailed, RetrySettings, RunSettings } from "../data/index.js";

/** How a step's failed model calls are tried again: attempts per model, the backoff, and how many fallback models follow the run's own. */
export interface RetryPolicy extends RetrySettings {
  readonly fallbacks: number;
}

/** Where the current step's attempts stand: the model being asked, its failures so far, and the wait before the next attempt. */
export interface AttemptState {
  /** The step these attempts are for; a record of another step counts as none. */
  readonly step: number;
  readonly model: number;
  readonly failures: number;
  /** Milliseconds to wait before the next attempt, and whether the provider set it (then it is kept as it is). */
  readonly delayMs: number;
  readonly fromProvider: boolean;
}

/** The policy a run's settings give, or null when it has neither `retry` nor `fallbackModels` (a failure then ends the run at once). */
export function retryPolicyOf(settings: RunSettings): RetryPolicy | null {
  const fallbacks = settings.fallbackModels ?? 0;
  if (settings.retry === undefined && fallbacks === 0) return null;
  const { attempts = 0, initialDelayMs = 0, maxDelayMs = 0 } = settings.retry ?? {};
  return { attempts, initialDelayMs, maxDelayMs, fallbacks };
}

interface RetryContext {
  readonly retry: RetryPolicy | null;
  readonly attempt: AttemptState | null;
  readonly steps: number;
}

/** The attempts of the step about to be asked for: the record, when it is this step's, else none yet on the run's model. */
export function currentAttempt(context: RetryContext): AttemptState {
  const step = context.steps + 1;
  const { attempt } = context;
  if (attempt !== null && attempt.step === step) return attempt;
  return { step, model: 0, failures: 0, delayMs: 0, fromProvider: false };
}

/** Whether the same model is asked again: the failure is retryable and the model has attempts left. */
export function mayRetry(context: RetryContext, event: ModelFailed): boolean {
  return context.retry !== null && event.retryable && currentAttempt(context).failures < context.retry.attempts;
}

/** Whether a fallback model is left to ask once this model is given up. */
export function hasFallback(context: RetryContext): boolean {
  return context.retry !== null && currentAttempt(context).model < context.retry.fallbacks;
}

/** Whether this failure ends the step's attempts: no retry and no fallback is left, so the run rejects with it. */
export function isGivingUp(context: RetryContext, event: ModelFailed): boolean {
  return !mayRetry(context, event) && !hasFallback(context);
}

/**
 * The wait before attempt `failures + 1`: the provider's `retry-after` when it gave one, else
 * `initialDelayMs` doubled per failure; either at most `maxDelayMs`. Pure: the driver adds the jitter.
 */
export function backoffDelay(policy: RetrySettings, failures: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(policy.maxDelayMs, retryAfterMs);
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, failures - 1));
}

/** Counts the failure against the model and sets the wait before it is asked again. */
export function recordFailure(
  context: RetryContext & { retry: RetryPolicy },
  event: ModelFailed,
): { attempt: AttemptState } {
  const current = currentAttempt(context);
  const failures = current.failures + 1;
  const delayMs = backoffDelay(context.retry, failures, event.retryAfterMs);
  return { attempt: { ...current, failures, delayMs, fromProvider: event.retryAfterMs !== undefined } };
}

/** Moves the step on to the next fallback model, with its own attempts, at once. */
export function nextModel(context: RetryContext): { attempt: AttemptState } {
  const current = currentAttempt(context);
  return { attempt: { ...current, model: current.model + 1, failures: 0, delayMs: 0, fromProvider: false } };
}

/** Clears the step's attempts once they are given up: a resumed run asks the run's model afresh. */
export function clearAttempts(): { attempt: null } {
  return { attempt: null };
}

/** The request to wait before the next attempt. */
export function waitRequest(context: RetryContext): AgentRequest {
  const { delayMs, fromProvider } = currentAttempt(context);
  return { type: "waitRetry", delayMs, jitter: !fromProvider };
}
