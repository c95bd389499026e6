import type { UIMessageChunk } from "ai";

/** The headers of a UI message stream response, as the AI SDK's clients expect them. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

/** A response that sends `chunks` as server-sent events, one JSON chunk per `data:` line, ending with `[DONE]`. */
export function uiMessageStreamResponse(chunks: ReadableStream<UIMessageChunk>): Response {
  const encoder = new TextEncoder();
  const body = chunks.pipeThrough(
    new TransformStream<UIMessageChunk, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      },
      flush(controller) {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      },
    }),
  );
  return new Response(body, { status: 200, headers: UI_MESSAGE_STREAM_HEADERS });
}
