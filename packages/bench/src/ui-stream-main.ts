import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { chatHandler, toUIMessageStream, uiMessageStreamResponse } from "@agentloop/ai-sdk";
import { MemoryEventStore, type Model, type ModelReply, streamAgent, ToolRegistry } from "@agentloop/core";

// The UI message stream's costs (`pnpm --filter @agentloop/bench bench:ui-stream`, after a build):
// the first chunk a client gets after its request, what a streamed delta costs on top of
// `streamAgent` alone, and the memory of an open chat. `--tiny` runs every row at a tiny size.
const tiny = process.argv.includes("--tiny");
const REQUESTS = tiny ? 5 : 200;
const DELTAS = tiny ? 200 : 5_000;
const ROUNDS = tiny ? 1 : 5;
const CHATS = tiny ? 10 : 500;

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

async function firstChunkMs(): Promise<number[]> {
  const handler = chatHandler({
    model: streamingModel(20),
    registry: new ToolRegistry(),
    store: new MemoryEventStore(),
  });
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const response = await handler(
      new Request("http://127.0.0.1/api/chat", { method: "POST", body: new Uint8Array(Buffer.concat(parts)) }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    for await (const chunk of response.body ?? []) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const body = JSON.stringify({
      id: `c${i}`,
      messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "Hi" }] }],
    });
    const start = performance.now();
    const response = await fetch(url, { method: "POST", body });
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

/** Microseconds per delta: streamAgent alone, then mapped to chunks, then also written as SSE bytes. */
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
    await drain(toUIMessageStream(streamAgent("Hi", model, registry)));
    const chunks = performance.now() - start;
    start = performance.now();
    await drain(uiMessageStreamResponse(toUIMessageStream(streamAgent("Hi", model, registry))).body as ReadableStream);
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

/** Bytes of heap per chat whose turn is open (its response held unread) and per chat paused on an approval. */
async function bytesPerChat(): Promise<{ open: number; paused: number }> {
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
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        body: JSON.stringify({ id, messages: [{ id: "u", role: "user", parts: [{ type: "text", text }] }] }),
      }),
    );
  const openHandler = chatHandler({ model, registry, store: new MemoryEventStore() });
  let before = heap();
  const held = await Promise.all(Array.from({ length: CHATS }, (_, i) => post(openHandler, `open${i}`, "slow")));
  const open = (heap() - before) / CHATS;
  release();
  await Promise.all(held.map((response) => response.text()));
  const pausedHandler = chatHandler({ model, registry, store: new MemoryEventStore() });
  before = heap();
  const paused = await Promise.all(Array.from({ length: CHATS }, (_, i) => post(pausedHandler, `p${i}`, "send")));
  await Promise.all(paused.map((response) => response.text()));
  return { open, paused: (heap() - before) / CHATS };
}

const load = loadavg().map((value) => value.toFixed(1));
process.stderr.write("bench: first chunk...\n");
const first = await firstChunkMs();
process.stderr.write("bench: per delta...\n");
const delta = await perDeltaUs();
process.stderr.write("bench: memory per chat...\n");
const memory = await bytesPerChat();
const loadAfter = loadavg().map((value) => value.toFixed(1));
const ms = (value: number): string => value.toFixed(2);
process.stdout.write(
  `# agentloop UI message stream bench${tiny ? " (--tiny: sizes too small to mean anything)" : ""}\n\n`,
);
process.stdout.write(
  `Machine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}; `,
);
process.stdout.write(`load average (1, 5, 15 min) ${load.join(", ")} before, ${loadAfter.join(", ")} after.\n\n`);
process.stdout.write("| Measure | Value |\n|---|---|\n");
process.stdout.write(
  `| First chunk after the request, ${REQUESTS} chats over HTTP on 127.0.0.1: median / p95 | ${ms(quantile(first, 0.5))} ms / ${ms(quantile(first, 0.95))} ms |\n`,
);
process.stdout.write(
  `| Per streamed delta, \`streamAgent\` alone (${DELTAS} deltas, median of ${ROUNDS}) | ${delta.alone.toFixed(2)} µs |\n`,
);
process.stdout.write(
  `| Per streamed delta, \`toUIMessageStream\` on top: added | +${(delta.chunks - delta.alone).toFixed(2)} µs |\n`,
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
