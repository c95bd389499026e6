import { loadavg } from "node:os";
import { agUiEventStreamResponse, agUiHandler, toAgUiEvents } from "@agentloop/ag-ui";
import {
  bytesPerConversation,
  firstItemMs,
  machineLine,
  perDeltaUs,
  quantile,
  type ServedSurface,
} from "./serving-costs.js";

// The AG-UI handler's costs (`pnpm --filter @agentloop/bench bench:ag-ui`, after a build): the first
// event a client gets after its request, what a streamed delta costs on top of `streamAgent` alone,
// and the memory of an open thread. `--tiny` runs every row at a tiny size. Measured as the UI
// message stream's bench measures them (serving-costs.ts), so that the two tables compare.
const tiny = process.argv.includes("--tiny");
const REQUESTS = tiny ? 5 : 200;
const DELTAS = tiny ? 200 : 5_000;
const ROUNDS = tiny ? 1 : 5;
const THREADS = tiny ? 10 : 500;

const IDS = { threadId: "t", runId: "r" };

const agUi: ServedSurface = {
  handler: agUiHandler,
  // A `RunAgentInput` with one user message, as an AG-UI client posts it.
  request: (threadId, text) =>
    new Request("http://127.0.0.1/agent", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId,
        runId: `${threadId}-run`,
        state: {},
        messages: [{ id: "u", role: "user", content: text }],
        tools: [],
        context: [],
        forwardedProps: {},
      }),
    }),
  mapped: (events) => toAgUiEvents(events, IDS),
  sse: (events) => agUiEventStreamResponse(toAgUiEvents(events, IDS)),
};

const load = loadavg();
process.stderr.write("bench: first event...\n");
const first = await firstItemMs(agUi, REQUESTS);
process.stderr.write("bench: per delta...\n");
const delta = await perDeltaUs(agUi, DELTAS, ROUNDS);
process.stderr.write("bench: memory per thread...\n");
const memory = await bytesPerConversation(agUi, THREADS);
const ms = (value: number): string => value.toFixed(2);
process.stdout.write(`# agentloop AG-UI handler bench${tiny ? " (--tiny: sizes too small to mean anything)" : ""}\n\n`);
process.stdout.write(machineLine(load));
process.stdout.write("| Measure | Value |\n|---|---|\n");
process.stdout.write(
  `| First event after the request, ${REQUESTS} threads over HTTP on 127.0.0.1: median / p95 | ${ms(quantile(first, 0.5))} ms / ${ms(quantile(first, 0.95))} ms |\n`,
);
process.stdout.write(
  `| Per streamed delta, \`streamAgent\` alone (${DELTAS} deltas, median of ${ROUNDS}) | ${delta.alone.toFixed(2)} µs |\n`,
);
process.stdout.write(
  `| Per streamed delta, \`toAgUiEvents\` on top: added | +${(delta.mapped - delta.alone).toFixed(2)} µs |\n`,
);
process.stdout.write(
  `| Per streamed delta, events written as SSE bytes: added | +${(delta.sse - delta.alone).toFixed(2)} µs |\n`,
);
process.stdout.write(
  `| Heap per thread with its run open (response unread, run in a tool), ${THREADS} threads | ${(memory.open / 1024).toFixed(1)} KiB |\n`,
);
process.stdout.write(
  `| Heap per thread paused on an approval (its log), ${THREADS} threads | ${(memory.paused / 1024).toFixed(1)} KiB |\n`,
);
