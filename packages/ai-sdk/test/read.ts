import { toUIMessageStream } from "@agentloop/ai-sdk";
import type { AgentStreamEvent } from "@agentloop/core";
import { readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from "ai";

/** The chunks of a run's stream, each checked against the `ai` package's own chunk schema. */
export async function chunksOf(events: AsyncIterable<AgentStreamEvent>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = toUIMessageStream(events).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    const checked = await uiMessageChunkSchema().validate?.(value);
    if (checked !== undefined && !checked.success) throw new Error(`chunk off the schema: ${JSON.stringify(value)}`);
    chunks.push(value);
  }
}

/** The message a page would hold after reading `chunks` with the `ai` package's parser, continuing `message` if given. */
export async function messageOf(chunks: readonly UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  const errors: unknown[] = [];
  for await (const snapshot of readUIMessageStream({
    stream,
    ...(message === undefined ? {} : { message }),
    terminateOnError: true,
    onError: (error) => errors.push(error),
  })) {
    last = snapshot;
  }
  if (errors.length > 0) throw errors[0];
  if (last === undefined) throw new Error("the stream wrote no message");
  return structuredClone(last);
}

/** The parts of a message without the step boundaries, for compact assertions. */
export function partsOf(message: UIMessage): unknown[] {
  return message.parts.filter((part) => part.type !== "step-start");
}

/** The first assistant reply of a chat's messages (the second message); throws when there is none. */
export function reply(messages: readonly UIMessage[]): UIMessage {
  const message = messages[1];
  if (message === undefined) throw new Error(`no reply among ${messages.length} messages`);
  return message;
}
