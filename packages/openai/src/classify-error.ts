import { sdkFailure } from "@agentloop/core/adapter";
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { OpenAIStreamError } from "./errors.js";

const CLASSES = { APIError, APIConnectionError, APIUserAbortError, StreamError: OpenAIStreamError };

/**
 * The error a failed call rejects with, as it came, marked (`markFailure`) retryable for a 408, 409, 429 (but not `insufficient_quota`), 5xx, a dropped connection, a
 * timeout or a broken stream, and not for any other 4xx or a context too long; an abort, and the
 * adapter's own refusals, are left unmarked.
 */
export function classifyOpenAIError(error: unknown): unknown {
  return sdkFailure(error, CLASSES);
}
