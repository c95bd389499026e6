import { failureOf, isRetryableFailure, markFailure, retryAfterMs } from "./provider-error.js";

/** A class of the SDK's errors, for `instanceof`. */
// biome-ignore lint/suspicious/noExplicitAny: a constructor of any signature; only `instanceof` is used.
type ErrorClass = abstract new (...args: any[]) => Error;

/** The error classes the official OpenAI and Anthropic SDKs share, by their names there. */
export interface SdkErrorClasses {
  /** Every answer the API refused, with `status`, `headers` and the error body's `type` (and `code`). */
  readonly APIError: ErrorClass;
  /** No answer: the connection failed, or (`APIConnectionTimeoutError`, a subclass) timed out. */
  readonly APIConnectionError: ErrorClass;
  /** The run's signal aborted the request: nothing to retry. */
  readonly APIUserAbortError: ErrorClass;
  /** The adapter's own error for a stream that broke off after it started. */
  readonly StreamError: ErrorClass;
}

interface ApiErrorShape {
  readonly status?: unknown;
  readonly headers?: unknown;
  readonly type?: unknown;
  readonly code?: unknown;
  readonly error?: unknown;
}

/**
 * Marks an error of an adapter's SDK (`markFailure`) with whether a later attempt may succeed
 * (see `isRetryableFailure`) and how long the provider asked to wait, and returns it unchanged
 * otherwise; an abort and any other error stay unmarked (not retryable). A stream that broke off
 * is retryable unless the API's error event in it says otherwise.
 */
export function sdkFailure(error: unknown, sdk: SdkErrorClasses): unknown {
  if (error instanceof sdk.APIUserAbortError) return error;
  if (error instanceof sdk.APIConnectionError) return wrap(error, true);
  if (error instanceof sdk.APIError) {
    const { status, headers } = error as ApiErrorShape;
    const after = retryAfterMs(isHeaders(headers) ? headers : undefined);
    const retryable = isRetryableFailure(
      typeof status === "number" ? status : undefined,
      errorTypes(error as ApiErrorShape),
    );
    return wrap(error, retryable, after);
  }
  if (error instanceof sdk.StreamError) {
    const { cause } = error;
    const refused = cause instanceof sdk.APIError && !(cause instanceof sdk.APIConnectionError);
    return wrap(error, refused ? failureOf(sdkFailure(cause, sdk)).retryable : true);
  }
  return error;
}

function wrap(error: Error, retryable: boolean, after?: number): Error {
  return markFailure(error, after === undefined ? { retryable } : { retryable, retryAfterMs: after });
}

/** The error types an SDK error carries: its `type` and `code`, and those of the body it was made from. */
function errorTypes(error: ApiErrorShape): unknown[] {
  const body = error.error as
    | { type?: unknown; code?: unknown; error?: { type?: unknown; code?: unknown } }
    | undefined;
  return [error.type, error.code, body?.type, body?.code, body?.error?.type, body?.error?.code];
}

function isHeaders(value: unknown): value is { get(name: string): string | null } {
  return typeof (value as { get?: unknown } | null | undefined)?.get === "function";
}
