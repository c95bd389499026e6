import { describeThrown, type ModelDelta } from "@agentloop/core/adapter";
import type OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import { CompletionAccumulator } from "./completion-accumulator.js";
import { OpenAIStreamError } from "./errors.js";

/** What a streamed call needs besides the request body. */
export interface StreamCall {
  readonly client: OpenAI;
  readonly requestOptions: { readonly maxRetries?: number; readonly timeout?: number };
  readonly signal: AbortSignal;
  readonly onDelta: (delta: ModelDelta) => void;
}

/**
 * Sends `body` with `stream: true` (and usage in the last chunk) through the SDK's streaming API,
 * calls `onDelta` as pieces arrive, and returns the completion the chunks add up to. A request that
 * fails before the stream starts rejects with the SDK's error, as the non-streaming path does; an
 * abort rejects with the SDK's `APIUserAbortError`; a stream that breaks off (connection cut, an
 * error event, no finish reason) rejects with `OpenAIStreamError`.
 */
export async function streamCompletion(
  body: ChatCompletionCreateParamsNonStreaming,
  call: StreamCall,
): Promise<ChatCompletion> {
  const streaming: ChatCompletionCreateParamsStreaming = {
    ...body,
    stream: true,
    stream_options: { include_usage: true },
  };
  const stream = await call.client.chat.completions.create(streaming, { ...call.requestOptions, signal: call.signal });
  const accumulator = new CompletionAccumulator(call.onDelta);
  try {
    for await (const chunk of stream) accumulator.add(chunk);
  } catch (error) {
    if (call.signal.aborted) throw abortError(call.client, error);
    throw new OpenAIStreamError(`the stream broke off after ${accumulator.chunks} chunks: ${describeThrown(error)}`, {
      cause: error,
    });
  }
  // The SDK ends an aborted stream quietly; the caller must still learn the reply never came.
  if (call.signal.aborted) throw abortError(call.client, call.signal.reason);
  return accumulator.completion();
}

/** The SDK's own abort error, so that streamed and non-streamed calls reject alike. */
function abortError(client: OpenAI, cause: unknown): Error {
  const AbortError = (client.constructor as { APIUserAbortError?: new () => Error }).APIUserAbortError;
  return AbortError === undefined ? new OpenAIStreamError("the request was aborted", { cause }) : new AbortError();
}
