import { describe, expect, it } from "vitest";
import type { AgentStreamEvent } from "./stream-events.js";
import { StreamQueue } from "./stream-queue.js";

const text = (piece: string, step = 1): AgentStreamEvent => ({ type: "text-delta", step, text: piece });
const reasoning = (piece: string): AgentStreamEvent => ({ type: "reasoning-delta", step: 1, text: piece });
const args = (index: number, piece: string, id?: string): AgentStreamEvent => ({
  type: "tool-call-delta",
  step: 1,
  index,
  ...(id === undefined ? {} : { id, name: "t" }),
  argsText: piece,
});

/** Takes what waits now, without waiting. */
async function drain(queue: StreamQueue, count: number): Promise<AgentStreamEvent[]> {
  const iterator = queue.iterator();
  const taken: AgentStreamEvent[] = [];
  for (let i = 0; i < count; i++) taken.push((await iterator.next()).value as AgentStreamEvent);
  return taken;
}

describe("StreamQueue", () => {
  it("keeps one waiting delta per kind and call however they interleave: 40,000 pieces, 4 events", () => {
    const queue = new StreamQueue();
    let most = 0;
    for (let i = 0; i < 10_000; i++) {
      for (const event of [text("a"), reasoning("b"), args(0, "c", i === 0 ? "x" : undefined), args(1, "d", "y")]) {
        queue.push(event);
        most = Math.max(most, queue.size);
      }
    }
    expect(most).toBe(4);
  });

  it("places a merged delta where its kind's first piece waited; a delta taken is closed, and another event closes all", async () => {
    const queue = new StreamQueue();
    for (const event of [text("a"), reasoning("x"), text("b")]) queue.push(event);
    expect(await drain(queue, 1)).toEqual([text("ab")]);
    for (const event of [text("c"), reasoning("y")]) queue.push(event);
    queue.push({ type: "logged", event: { type: "model.replied", reply: { content: "abc", toolCalls: [] } } });
    queue.push(text("d", 2));
    queue.push(text("e", 2));
    const rest = await drain(queue, 4);
    expect(rest.map((event) => ("text" in event ? event.text : event.type))).toEqual(["xy", "c", "logged", "de"]);
  });

  it("merges the pieces of children streaming at once each with its own, never with another run's", async () => {
    const queue = new StreamQueue();
    const from = (piece: string, callPath?: string[]): AgentStreamEvent => ({
      ...text(piece),
      ...(callPath === undefined ? {} : { origin: { callPath } }),
    });
    for (const event of [from("a", ["r1"]), from("b", ["r2"]), from("c", ["r1"]), from("d", ["r2"]), from("e")]) {
      queue.push(event);
    }
    expect(await drain(queue, 3)).toEqual([from("ac", ["r1"]), from("bd", ["r2"]), from("e")]);
  });

  it("starts a new delta for a tool call whose piece names another id", () => {
    const queue = new StreamQueue();
    for (const event of [args(0, "{", "x"), args(0, "}"), args(0, "{", "z")]) queue.push(event);
    expect(queue.size).toBe(2);
  });
});
