/** What an adapter learned about a failed request: whether trying again may help, and when. */
export interface ProviderFailure {
  /** Whether the same call may succeed later: a rate limit, an overload, a 5xx, a dropped connection, a timeout. */
  readonly retryable: boolean;
  /** Milliseconds the provider asked to wait before the next attempt (`retry-after-ms` / `retry-after`). */
  readonly retryAfterMs?: number;
}

const FAILURE = Symbol.for("agentloop.failure");

/**
 * Marks an error a model adapter rejects with as retryable or not (and the wait the provider
 * asked for), on a hidden symbol key, and returns the same error: callers of the adapter still get
 * the SDK's own error, and the run reads the mark into `ModelError.retryable`. A frozen error
 * stays unmarked (not retryable).
 */
export function markFailure<T>(error: T, failure: ProviderFailure): T {
  if (typeof error !== "object" || error === null) return error;
  try {
    Object.defineProperty(error, FAILURE, { value: failure, configurable: true });
  } catch {
    // A frozen error keeps its default: not retryable.
  }
  return error;
}

/** Error types of a provider's error body (`error.type` / `error.code`) that a later attempt may get past. */
const RETRYABLE_TYPES = new Set([
  "rate_limit_error",
  "rate_limit_exceeded",
  "overloaded_error",
  "api_error",
  "server_error",
]);
/** Error types that no later attempt gets past: an empty balance does not refill in seconds. */
const FINAL_TYPES = new Set(["insufficient_quota", "context_length_exceeded", "invalid_request_error"]);

/**
 * Classifies an HTTP answer the provider refused, from its status and its error body's
 * `type`/`code`: 408, 409, 429, 529 and every 5xx are retryable, any other 4xx is not, and an
 * `insufficient_quota` or context-too-long error never is, whatever its status. Without a status
 * (an error event in a stream), the error type alone decides.
 */
export function isRetryableFailure(status: number | undefined, errorTypes: readonly unknown[] = []): boolean {
  if (errorTypes.some((type) => FINAL_TYPES.has(type as string))) return false;
  if (status === undefined) return errorTypes.some((type) => RETRYABLE_TYPES.has(type as string));
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * A provider's wait as a whole number of milliseconds that a log can hold: rounded up, and at most
 * `Number.MAX_SAFE_INTEGER` (some 285,000 years; a longer wait, or an infinite one, is logged as
 * that); undefined for a negative number or NaN.
 */
export function providerWaitMs(ms: number): number | undefined {
  if (Number.isNaN(ms) || ms < 0) return undefined;
  return Math.min(Number.MAX_SAFE_INTEGER, Math.ceil(ms));
}

/** Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds, or an HTTP date against `now`) into milliseconds (see `providerWaitMs`); undefined when absent or unreadable. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  now: number = Date.now(),
): number | undefined {
  const ms = providerWaitMs(Number.parseFloat(headers?.get("retry-after-ms") ?? ""));
  if (ms !== undefined) return ms;
  const after = headers?.get("retry-after");
  if (after === undefined || after === null || after.trim() === "") return undefined;
  const seconds = providerWaitMs(Number(after) * 1000);
  if (seconds !== undefined) return seconds;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The `retryable` and `retryAfterMs` of anything a model threw: an adapter's mark (`markFailure`),
 * else the error's own `retryable` and `retryAfterMs` properties (a custom model sets them), else
 * not retryable.
 */
export function failureOf(thrown: unknown): ProviderFailure {
  try {
    if (typeof thrown !== "object" || thrown === null) return { retryable: false };
    const source = ((thrown as { [FAILURE]?: ProviderFailure })[FAILURE] ?? thrown) as {
      retryable?: unknown;
      retryAfterMs?: unknown;
    };
    const retryable = source.retryable === true;
    const after = typeof source.retryAfterMs === "number" ? providerWaitMs(source.retryAfterMs) : undefined;
    return after === undefined ? { retryable } : { retryable, retryAfterMs: after };
  } catch {
    return { retryable: false };
  }
}
