import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import {
  type AgentStreamEvent,
  type EventStore,
  MemoryEventStore,
  type Model,
  type ModelReply,
  streamAgent,
  ToolRegistry,
} from "@agentloop/core";
import { machine, title } from "./report.js";

// What a served surface costs, measured the same way for each (ui-stream-main.ts, ag-ui-main.ts): the
// first item a client gets after its request, what a streamed delta costs on top of `streamAgent`
// alone, and the memory of an open conversation and of one paused on an approval.

/** A served surface: its handler, what a client posts, and how it maps and writes a stream. */
export interface ServedSurface {
  readonly handler: (options: {
    model: Model;
    registry: ToolRegistry;
    store: EventStore;
  }) => (request: Request) => Promise<Response>;
  /** The request a client posts with one user message `text` in conversation `id`. */
  readonly request: (id: string, text: string) => Request;
  /** `streamAgent`'s events as the surface's items, drained by the caller. */
  readonly mapped: (events: AsyncIterable<AgentStreamEvent>) => AsyncIterable<unknown> | ReadableStream<unknown>;
  /** The same items written as SSE bytes. */
  readonly sse: (events: AsyncIterable<AgentStreamEvent>) => Response;
}

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

export const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

async function drain(items: AsyncIterable<unknown> | ReadableStream<unknown>): Promise<void> {
  if (items instanceof ReadableStream) {
    const reader = items.getReader();
    while (!(await reader.read()).done) {}
    return;
  }
  for await (const _ of items) {
  }
}

/** Milliseconds from each of `requests` requests over HTTP on 127.0.0.1 to its first item. */
export async function firstItemMs(surface: ServedSurface, requests: number): Promise<number[]> {
  const handler = surface.handler({
    model: streamingModel(20),
    registry: new ToolRegistry(),
    store: new MemoryEventStore(),
  });
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const posted = surface.request("unused", "unused");
    const response = await handler(
      new Request(posted.url, {
        method: "POST",
        headers: posted.headers,
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
  for (let i = 0; i < requests; i++) {
    const posted = surface.request(`c${i}`, "Hi");
    const body = await posted.text();
    const start = performance.now();
    const response = await fetch(url, { method: "POST", headers: posted.headers, body });
    if (response.status !== 200) throw new Error(`the handler refused the input: ${await response.text()}`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    times.push(performance.now() - start);
    while (!(await reader.read()).done) {}
  }
  server.close();
  return times;
}

/** Microseconds per delta, median of `rounds`: streamAgent alone, then mapped, then also written as SSE bytes. */
export async function perDeltaUs(
  surface: ServedSurface,
  deltas: number,
  rounds: number,
): Promise<{ alone: number; mapped: number; sse: number }> {
  const model = streamingModel(deltas);
  const registry = new ToolRegistry();
  const runs = { alone: [] as number[], mapped: [] as number[], sse: [] as number[] };
  for (let round = 0; round < rounds + 1; round++) {
    let start = performance.now();
    await drain(streamAgent("Hi", model, registry));
    const alone = performance.now() - start;
    start = performance.now();
    await drain(surface.mapped(streamAgent("Hi", model, registry)));
    const mapped = performance.now() - start;
    start = performance.now();
    await drain(surface.sse(streamAgent("Hi", model, registry)).body as ReadableStream);
    const sse = performance.now() - start;
    // The first round warms up.
    if (round === 0) continue;
    runs.alone.push(alone);
    runs.mapped.push(mapped);
    runs.sse.push(sse);
  }
  const us = (values: number[]): number => (quantile(values, 0.5) * 1000) / deltas;
  return { alone: us(runs.alone), mapped: us(runs.mapped), sse: us(runs.sse) };
}

/** Bytes of heap per conversation whose turn is open (its response held unread) and per one paused on an approval. */
export async function bytesPerConversation(
  surface: ServedSurface,
  count: number,
): Promise<{ open: number; paused: number }> {
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
  const many = (handler: (request: Request) => Promise<Response>, prefix: string, text: string) =>
    Promise.all(Array.from({ length: count }, (_, i) => handler(surface.request(`${prefix}${i}`, text))));
  const openHandler = surface.handler({ model, registry, store: new MemoryEventStore() });
  let before = heap();
  const held = await many(openHandler, "open", "slow");
  if (held.some((response) => response.status !== 200)) throw new Error("the handler refused an input");
  const open = (heap() - before) / count;
  release();
  await Promise.all(held.map((response) => response.text()));
  const pausedHandler = surface.handler({ model, registry, store: new MemoryEventStore() });
  before = heap();
  const paused = await many(pausedHandler, "p", "send");
  await Promise.all(paused.map((response) => response.text()));
  return { open, paused: (heap() - before) / count };
}

/** The machine line every serving table starts with: cores, CPU, Node and the load before and after. */
export function machineLine(loadBefore: number[]): string {
  const load = (values: number[]) => values.map((value) => value.toFixed(1)).join(", ");
  return `${machine()}; load average (1, 5, 15 min) ${load(loadBefore)} before, ${load(loadavg())} after.\n\n`;
}

/** The words one surface's table is written in: what it streams and what a conversation is called. */
export interface ServingWords {
  /** The table's title after "agentloop", e.g. `AG-UI handler`. */
  readonly title: string;
  /** One streamed item, e.g. `event`; its plural is `items`. */
  readonly item: string;
  readonly items: string;
  /** One conversation, e.g. `thread`; its plural is `conversations`. */
  readonly conversation: string;
  readonly conversations: string;
  /** What is open while a conversation's response is unread, e.g. `run`. */
  readonly open: string;
  /** The surface's mapping function, e.g. `toAgUiEvents`. */
  readonly mapper: string;
  /** What a paused conversation keeps, e.g. `its log`. */
  readonly kept: string;
}

/** The sizes one run of a serving bench measures at. */
export interface ServingSizes {
  readonly requests: number;
  readonly deltas: number;
  readonly rounds: number;
  readonly conversations: number;
}

/**
 * Measures `surface` at `sizes` (progress on stderr) and writes its table to stdout, in the same
 * rows for every surface so that the tables compare.
 */
export async function writeServingTable(
  surface: ServedSurface,
  words: ServingWords,
  sizes: ServingSizes,
  tiny: boolean,
): Promise<void> {
  const { requests, deltas, rounds, conversations } = sizes;
  const load = loadavg();
  process.stderr.write(`bench: first ${words.item}...\n`);
  const first = await firstItemMs(surface, requests);
  process.stderr.write("bench: per delta...\n");
  const delta = await perDeltaUs(surface, deltas, rounds);
  process.stderr.write(`bench: memory per ${words.conversation}...\n`);
  const memory = await bytesPerConversation(surface, conversations);
  const ms = (value: number): string => value.toFixed(2);
  const rows = [
    `First ${words.item} after the request, ${requests} ${words.conversations} over HTTP on 127.0.0.1: median / p95 | ${ms(quantile(first, 0.5))} ms / ${ms(quantile(first, 0.95))} ms`,
    `Per streamed delta, \`streamAgent\` alone (${deltas} deltas, median of ${rounds}) | ${delta.alone.toFixed(2)} µs`,
    `Per streamed delta, \`${words.mapper}\` on top: added | +${(delta.mapped - delta.alone).toFixed(2)} µs`,
    `Per streamed delta, ${words.items} written as SSE bytes: added | +${(delta.sse - delta.alone).toFixed(2)} µs`,
    `Heap per ${words.conversation} with its ${words.open} open (response unread, run in a tool), ${conversations} ${words.conversations} | ${(memory.open / 1024).toFixed(1)} KiB`,
    `Heap per ${words.conversation} paused on an approval (${words.kept}), ${conversations} ${words.conversations} | ${(memory.paused / 1024).toFixed(1)} KiB`,
  ];
  process.stdout.write(`${title(`${words.title} bench`, tiny)}\n\n`);
  process.stdout.write(machineLine(load));
  process.stdout.write("| Measure | Value |\n|---|---|\n");
  for (const row of rows) process.stdout.write(`| ${row} |\n`);
}
