import { agUiEventStreamResponse, agUiHandler, toAgUiEvents } from "@agentloop/ag-ui";
import { type ServedSurface, writeServingTable } from "./serving-costs.js";

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

await writeServingTable(
  agUi,
  {
    title: "AG-UI handler",
    item: "event",
    items: "events",
    conversation: "thread",
    conversations: "threads",
    open: "run",
    mapper: "toAgUiEvents",
    kept: "its log",
  },
  { requests: REQUESTS, deltas: DELTAS, rounds: ROUNDS, conversations: THREADS },
  tiny,
);
