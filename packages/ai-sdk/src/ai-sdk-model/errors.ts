import { adapterErrorClass, markFailure, retryAfterMs } from "@agentloop/core/adapter";

/**
 * `aiSdkModel` was given something it cannot bridge (a model of a specification version it does
 * not speak, a setting out of range): thrown when the model is made, nothing was sent.
 */
export class AiSdkModelError extends adapterErrorClass("AiSdkModelError") {}

/**
 * A streamed reply broke off: the provider sent an `error` part, or the stream ended before its
 * `finish` part. `cause` holds the provider's error; the partial reply is never used.
 */
export class AiSdkStreamError extends adapterErrorClass("AiSdkStreamError") {}

interface ApiCallErrorShape {
  readonly name?: unknown;
  readonly isRetryable?: unknown;
  readonly statusCode?: unknown;
  readonly responseHeaders?: unknown;
}

/**
 * Marks what a provider model threw (`markFailure`) for the run's `retry` and `fallbackModels`:
 * an `APICallError` (`AI_APICallError`) is retryable as the provider says (`isRetryable`: 408,
 * 409, 429, 5xx), with the wait its `retry-after-ms` / `retry-after` headers ask for; a stream
 * that broke off is retryable unless its cause says otherwise; an abort and anything else stay
 * unmarked (not retryable). Errors are read by shape, not class: the bridge loads nothing of the
 * AI SDK at run time, and providers may bundle their own copy of its errors.
 */
export function classifyAiSdkError(error: unknown): unknown {
  if (error instanceof AiSdkStreamError) {
    const cause = apiCallError(error.cause);
    markFailure(error, { retryable: cause === undefined ? true : cause.isRetryable === true });
    return error;
  }
  const api = apiCallError(error);
  if (api === undefined) return error;
  const headers = api.responseHeaders;
  const after =
    typeof headers === "object" && headers !== null
      ? retryAfterMs(headerReader(headers as Record<string, unknown>))
      : undefined;
  const retryable = api.isRetryable === true;
  return markFailure(error, after === undefined ? { retryable } : { retryable, retryAfterMs: after });
}

function apiCallError(error: unknown): ApiCallErrorShape | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const shape = error as ApiCallErrorShape;
  return shape.name === "AI_APICallError" && typeof shape.isRetryable === "boolean" ? shape : undefined;
}

/** Headers as a record (the AI SDK lower-cases their names) read as `Headers` are. */
function headerReader(headers: Record<string, unknown>): { get(name: string): string | null } {
  return {
    get: (name) => {
      const value = headers[name] ?? headers[name.toLowerCase()];
      return typeof value === "string" ? value : null;
    },
  };
}
