import { chatHandler, toUIMessageStream, uiMessageStreamResponse } from "@agentloop/ai-sdk";
import { type ServedSurface, writeServingTable } from "./serving-costs.js";

// The UI message stream's costs (`pnpm --filter @agentloop/bench bench:ui-stream`, after a build):
// the first chunk a client gets after its request, what a streamed delta costs on top of
// `streamAgent` alone, and the memory of an open chat. `--tiny` runs every row at a tiny size.
const tiny = process.argv.includes("--tiny");
const REQUESTS = tiny ? 5 : 200;
const DELTAS = tiny ? 200 : 5_000;
const ROUNDS = tiny ? 1 : 5;
const CHATS = tiny ? 10 : 500;

const uiStream: ServedSurface = {
  handler: chatHandler,
  request: (id, text) =>
    new Request("http://127.0.0.1/api/chat", {
      method: "POST",
      body: JSON.stringify({ id, messages: [{ id: "u", role: "user", parts: [{ type: "text", text }] }] }),
    }),
  mapped: (events) => toUIMessageStream(events),
  sse: (events) => uiMessageStreamResponse(toUIMessageStream(events)),
};

await writeServingTable(
  uiStream,
  {
    title: "UI message stream",
    item: "chunk",
    items: "chunks",
    conversation: "chat",
    conversations: "chats",
    open: "turn",
    mapper: "toUIMessageStream",
    kept: "log, kept message",
  },
  { requests: REQUESTS, deltas: DELTAS, rounds: ROUNDS, conversations: CHATS },
  tiny,
);
