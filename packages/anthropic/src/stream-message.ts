import { describeThrown, type ModelDelta } from "@agentloop/core/adapter";
import type Anthropic from "@anthropic-ai/sdk";
import type {
  Message as AnthropicMessage,
  MessageCreateParamsNonStreaming,
  MessageStreamEvent,
} from "@anthropic-ai/sdk/resources/messages";
import { AnthropicStreamError } from "./errors.js";

/** What a streamed call needs besides the request body. */
export interface StreamCall {
  readonly client: Anthropic;
  readonly requestOptions: { readonly maxRetries?: number; readonly timeout?: number };
  readonly signal: AbortSignal;
  readonly onDelta: (delta: ModelDelta) => void;
}

/**
 * Sends `body` through the SDK's streaming API (`messages.stream`), calls `onDelta` for each piece
 * of text, thinking and tool input as it arrives, and returns the message the SDK assembles from
 * the events: the same `Message` a non-streaming call returns, thinking signatures included. A
 * request that fails before the stream starts, and an abort, reject with the SDK's error as the
 * non-streaming path does; a stream that breaks off afterwards (connection cut, an `error` event,
 * no `message_stop`) rejects with `AnthropicStreamError`.
 */
export async function streamMessage(
  body: MessageCreateParamsNonStreaming,
  call: StreamCall,
): Promise<AnthropicMessage> {
  const stream = call.client.messages.stream(body, { ...call.requestOptions, signal: call.signal });
  const toDeltas = deltaMapper(call.onDelta);
  let events = 0;
  stream.on("streamEvent", (event) => {
    events += 1;
    toDeltas(event);
  });
  try {
    return await stream.finalMessage();
  } catch (error) {
    if (call.signal.aborted || !stream.response) throw error;
    throw new AnthropicStreamError(`the stream broke off after ${events} events: ${describeThrown(error)}`, {
      cause: error,
    });
  }
}

/** Turns raw stream events into deltas; tool calls are numbered in the order their blocks start. */
function deltaMapper(onDelta: (delta: ModelDelta) => void): (event: MessageStreamEvent) => void {
  const toolIndex = new Map<number, number>();
  return (event) => {
    if (event.type === "content_block_start" && event.content_block.type === "tool_use") {
      const index = toolIndex.size;
      toolIndex.set(event.index, index);
      const { id, name } = event.content_block;
      onDelta({ type: "tool-call-delta", index, id, name, argsText: "" });
    } else if (event.type === "content_block_delta") {
      const { delta } = event;
      if (delta.type === "text_delta" && delta.text !== "") onDelta({ type: "text-delta", text: delta.text });
      else if (delta.type === "thinking_delta" && delta.thinking !== "") {
        onDelta({ type: "reasoning-delta", text: delta.thinking });
      } else if (delta.type === "input_json_delta" && delta.partial_json !== "") {
        const index = toolIndex.get(event.index);
        if (index !== undefined) onDelta({ type: "tool-call-delta", index, argsText: delta.partial_json });
      }
    }
  };
}
