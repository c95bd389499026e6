import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { agUiEventStreamResponse, agUiHandler, toAgUiEvents } from "@agentloop/ag-ui";
import { MemoryEventStore, type Model, type ModelReply, streamAgent, ToolRegistry } from "@agentloop/core";

// The AG-UI handler's costs (`pnpm --filter @agentloop/bench bench:ag-ui`, after a build): the first
// event a client gets after its request, what a streamed delta costs on top of `streamAgent` alone,
// and the memory of an open thread. `--tiny` runs every row at a tiny size. Measured as the UI
// message stream's bench measures them (ui-stream-main.ts), so that the two tables compare.
const tiny = process.argv.includes("--tiny");
const REQUESTS = tiny ? 5 : 200;
const DELTAS = tiny ? 200 : 5_000;
const ROUNDS = tiny ? 1 : 5;
const THREADS = tiny ? 10 : 500;

/**
 * A model that streams `deltas` one-word text deltas, then answers with their text. It yields to
 * the event loop after each, as a socket would, so that the reader keeps up and every delta is
 * read on its own (a reader that lags gets the waiting deltas merged).
 */
function streamingModel(deltas: number): Model {
  return async (_messages, _tools, options): Promise<ModelReply> => {
    for (let i = 0; i < deltas; i++) {
      options?.onDelta?.({ type: "text-delta", text: "w " });
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { content: "w ".repeat(deltas), toolCalls: [] };
  };
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

async function firstEventMs(): Promise<number[]> {
  const handler = agUiHandler({
    model: streamingModel(20),
    registry: new ToolRegistry(),
    store: new MemoryEventStore(),
  });
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const response = await handler(
      new Request("http://127.0.0.1/agent", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Uint8Array(Buffer.concat(parts)),
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    for await (const chunk of response.body ?? []) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const body = runInput(`t${i}`, "Hi");
    const start = performance.now();
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    if (response.status !== 200) throw new Error(`the handler refused the input: ${await response.text()}`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    times.push(performance.now() - start);
    while (!(await reader.read()).done) {}
  }
  server.close();
  return times;
}

async function drain(stream: ReadableStream<unknown>): Promise<void> {
  const reader = stream.getReader();
  while (!(await reader.read()).done) {}
}

async function drainIterable(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of events) {
  }
}

/** A `RunAgentInput` with one user message, as an AG-UI client posts it. */
function runInput(threadId: string, text: string): string {
  return JSON.stringify({
    threadId,
    runId: `${threadId}-run`,
    state: {},
    messages: [{ id: "u", role: "user", content: text }],
    tools: [],
    context: [],
    forwardedProps: {},
  });
}

const IDS = { threadId: "t", runId: "r" };

/** Microseconds per delta: streamAgent alone, then mapped to AG-UI events, then also written as SSE bytes. */
async function perDeltaUs(): Promise<{ alone: number; chunks: number; sse: number }> {
  const model = streamingModel(DELTAS);
  const registry = new ToolRegistry();
  const runs = { alone: [] as number[], chunks: [] as number[], sse: [] as number[] };
  for (let round = 0; round < ROUNDS + 1; round++) {
    let start = performance.now();
    for await (const _ of streamAgent("Hi", model, registry)) {
    }
    const alone = performance.now() - start;
    start = performance.now();
    await drainIterable(toAgUiEvents(streamAgent("Hi", model, registry), IDS));
    const chunks = performance.now() - start;
    start = performance.now();
    await drain(agUiEventStreamResponse(toAgUiEvents(streamAgent("Hi", model, registry), IDS)).body as ReadableStream);
    const sse = performance.now() - start;
    // The first round warms up.
    if (round === 0) continue;
    runs.alone.push(alone);
    runs.chunks.push(chunks);
    runs.sse.push(sse);
  }
  const us = (values: number[]): number => (quantile(values, 0.5) * 1000) / DELTAS;
  return { alone: us(runs.alone), chunks: us(runs.chunks), sse: us(runs.sse) };
}

/** Bytes of heap per thread whose run is open (its response held unread) and per thread paused on an approval. */
async function bytesPerThread(): Promise<{ open: number; paused: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with node --expose-gc");
  const heap = (): number => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const registry = new ToolRegistry();
  registry.register("slow", "Slow.", { type: "object", properties: {} }, async () => {
    await gate;
    return "ok";
  });
  registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
  const model: Model = (messages) => ({
    content: "Working on it.",
    toolCalls: [{ id: `t${messages.length}`, name: String(messages.at(-1)?.content), args: {} }],
  });
  const post = (handler: (request: Request) => Promise<Response>, id: string, text: string) =>
    handler(
      new Request("http://127.0.0.1/agent", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: runInput(id, text),
      }),
    );
  const openHandler = agUiHandler({ model, registry, store: new MemoryEventStore() });
  let before = heap();
  const held = await Promise.all(Array.from({ length: THREADS }, (_, i) => post(openHandler, `open${i}`, "slow")));
  if (held.some((response) => response.status !== 200)) throw new Error("the handler refused an input");
  const open = (heap() - before) / THREADS;
  release();
  await Promise.all(held.map((response) => response.text()));
  const pausedHandler = agUiHandler({ model, registry, store: new MemoryEventStore() });
  before = heap();
  const paused = await Promise.all(Array.from({ length: THREADS }, (_, i) => post(pausedHandler, `p${i}`, "send")));
  await Promise.all(paused.map((response) => response.text()));
  return { open, paused: (heap() - before) / THREADS };
}

const load = loadavg().map((value) => value.toFixed(1));
process.stderr.write("bench: first event...\n");
const first = await firstEventMs();
process.stderr.write("bench: per delta...\n");
const delta = await perDeltaUs();
process.stderr.write("bench: memory per thread...\n");
const memory = await bytesPerThread();
const loadAfter = loadavg().map((value) => value.toFixed(1));
const ms = (value: number): string => value.toFixed(2);
process.stdout.write(`# agentloop AG-UI handler bench${tiny ? " (--tiny: sizes too small to mean anything)" : ""}\n\n`);
process.stdout.write(
  `Machine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}; `,
);
process.stdout.write(`load average (1, 5, 15 min) ${load.join(", ")} before, ${loadAfter.join(", ")} after.\n\n`);
process.stdout.write("| Measure | Value |\n|---|---|\n");
process.stdout.write(
  `| First event after the request, ${REQUESTS} threads over HTTP on 127.0.0.1: median / p95 | ${ms(quantile(first, 0.5))} ms / ${ms(quantile(first, 0.95))} ms |\n`,
);
process.stdout.write(
  `| Per streamed delta, \`streamAgent\` alone (${DELTAS} deltas, median of ${ROUNDS}) | ${delta.alone.toFixed(2)} µs |\n`,
);
process.stdout.write(
  `| Per streamed delta, \`toAgUiEvents\` on top: added | +${(delta.chunks - delta.alone).toFixed(2)} µs |\n`,
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
