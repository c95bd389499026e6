import { type ModelDelta, readModelStream, type StreamCall } from "@agentloop/core/adapter";
import { APIUserAbortError } from "@anthropic-ai/sdk";
import type {
  Message as AnthropicMessage,
  MessageCreateParamsNonStreaming,
  MessageStreamEvent,
} from "@anthropic-ai/sdk/resources/messages";
import type { AnthropicClient } from "./client.js";
import { AnthropicStreamError } from "./errors.js";

/**
 * Sends `body` through the SDK's streaming API (`messages.stream`), calls `onDelta` for each piece
 * of text, thinking and tool input as it arrives, and returns the message the SDK assembles from
 * the events: the same `Message` a non-streaming call returns, thinking signatures included. A
 * request that fails before the stream starts, and an abort, reject with the SDK's error as the
 * non-streaming path does; a stream that breaks off afterwards (connection cut, an `error` event,
 * no `message_stop`) rejects with `AnthropicStreamError`.
 */
export function streamMessage(
  body: MessageCreateParamsNonStreaming,
  call: StreamCall<AnthropicClient>,
): Promise<AnthropicMessage> {
  const stream = call.client.messages.stream(body, { ...call.requestOptions, signal: call.signal });
  // The SDK assembles the message (thinking signatures included) from the same events the deltas
  // come from, so the reply is converted exactly as a non-streamed one.
  return readModelStream(
    (each: (event: MessageStreamEvent) => void) => {
      stream.on("streamEvent", each);
      return stream.finalMessage();
    },
    {
      ...call,
      toDeltas: deltaMapper(),
      unit: "events",
      StreamError: AnthropicStreamError,
      AbortError: APIUserAbortError,
      started: () => Boolean(stream.response),
    },
  );
}

/** Turns raw stream events into deltas; tool calls are numbered in the order their blocks start. */
function deltaMapper(): (event: MessageStreamEvent) => ModelDelta[] {
  const toolIndex = new Map<number, number>();
  return (event) => {
    if (event.type === "content_block_start" && event.content_block.type === "tool_use") {
      const index = toolIndex.size;
      toolIndex.set(event.index, index);
      const { id, name } = event.content_block;
      return [{ type: "tool-call-delta", index, id, name, argsText: "" }];
    }
    if (event.type !== "content_block_delta") return [];
    const { delta } = event;
    if (delta.type === "text_delta" && delta.text !== "") return [{ type: "text-delta", text: delta.text }];
    if (delta.type === "thinking_delta" && delta.thinking !== "") {
      return [{ type: "reasoning-delta", text: delta.thinking }];
    }
    const index = toolIndex.get(event.index);
    if (delta.type === "input_json_delta" && delta.partial_json !== "" && index !== undefined) {
      return [{ type: "tool-call-delta", index, argsText: delta.partial_json }];
    }
    return [];
  };
}
