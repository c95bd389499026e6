import { readModelStream, type StreamCall } from "@agentloop/core/adapter";
import type OpenAI from "openai";
import { APIUserAbortError } from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import { CompletionAccumulator } from "./completion-accumulator.js";
import { OpenAIStreamError } from "./errors.js";

/**
 * Sends `body` with `stream: true` (and usage in the last chunk) through the SDK's streaming API,
 * calls `onDelta` as pieces arrive, and returns the completion the chunks add up to. A request that
 * fails before the stream starts rejects with the SDK's error, as the non-streaming path does; an
 * abort rejects with the SDK's `APIUserAbortError`; a stream that breaks off (connection cut, an
 * error event, no finish reason) rejects with `OpenAIStreamError`.
 */
export async function streamCompletion(
  body: ChatCompletionCreateParamsNonStreaming,
  call: StreamCall<OpenAI>,
): Promise<ChatCompletion> {
  const streaming: ChatCompletionCreateParamsStreaming = {
    ...body,
    stream: true,
    stream_options: { include_usage: true },
  };
  const stream = await call.client.chat.completions.create(streaming, { ...call.requestOptions, signal: call.signal });
  // The chunks are joined here, not by the SDK's stream helper: it overwrites the reasoning
  // fields compatible servers add instead of joining them.
  const accumulator = new CompletionAccumulator();
  const chunks = await readModelStream(stream, {
    ...call,
    toDeltas: (chunk) => accumulator.add(chunk),
    unit: "chunks",
    StreamError: OpenAIStreamError,
    AbortError: APIUserAbortError,
  });
  return accumulator.completion(chunks);
}
