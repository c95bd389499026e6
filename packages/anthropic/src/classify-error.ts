import { sdkFailure } from "@agentloop/core/adapter";
import { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { AnthropicStreamError } from "./errors.js";

const CLASSES = { APIError, APIConnectionError, APIUserAbortError, StreamError: AnthropicStreamError };

/**
 * The error a failed call rejects with, as it came, marked (`markFailure`) retryable for a 408, 409, 429, 529 (`overloaded_error`, also as a stream's error event), 5xx, a
 * dropped connection, a timeout or a broken stream, and not for any other 4xx or a prompt too
 * long; an abort, and the adapter's own refusals, are left unmarked.
 */
export function classifyAnthropicError(error: unknown): unknown {
  return sdkFailure(error, CLASSES);
}
