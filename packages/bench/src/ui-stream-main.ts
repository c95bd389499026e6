import { loadavg } from "node:os";
import { chatHandler, toUIMessageStream, uiMessageStreamResponse } from "@agentloop/ai-sdk";
import {
  bytesPerConversation,
  firstItemMs,
  machineLine,
  perDeltaUs,
  quantile,
  type ServedSurface,
} from "./serving-costs.js";

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

const load = loadavg();
process.stderr.write("bench: first chunk...\n");
const first = await firstItemMs(uiStream, REQUESTS);
process.stderr.write("bench: per delta...\n");
const delta = await perDeltaUs(uiStream, DELTAS, ROUNDS);
process.stderr.write("bench: memory per chat...\n");
const memory = await bytesPerConversation(uiStream, CHATS);
const ms = (value: number): string => value.toFixed(2);
process.stdout.write(
  `# agentloop UI message stream bench${tiny ? " (--tiny: sizes too small to mean anything)" : ""}\n\n`,
);
process.stdout.write(machineLine(load));
process.stdout.write("| Measure | Value |\n|---|---|\n");
process.stdout.write(
  `| First chunk after the request, ${REQUESTS} chats over HTTP on 127.0.0.1: median / p95 | ${ms(quantile(first, 0.5))} ms / ${ms(quantile(first, 0.95))} ms |\n`,
);
process.stdout.write(
  `| Per streamed delta, \`streamAgent\` alone (${DELTAS} deltas, median of ${ROUNDS}) | ${delta.alone.toFixed(2)} µs |\n`,
);
process.stdout.write(
  `| Per streamed delta, \`toUIMessageStream\` on top: added | +${(delta.mapped - delta.alone).toFixed(2)} µs |\n`,
);
process.stdout.write(
  `| Per streamed delta, chunks written as SSE bytes: added | +${(delta.sse - delta.alone).toFixed(2)} µs |\n`,
);
process.stdout.write(
  `| Heap per chat with its turn open (response unread, run in a tool), ${CHATS} chats | ${(memory.open / 1024).toFixed(1)} KiB |\n`,
);
process.stdout.write(
  `| Heap per chat paused on an approval (log, kept message), ${CHATS} chats | ${(memory.paused / 1024).toFixed(1)} KiB |\n`,
);
