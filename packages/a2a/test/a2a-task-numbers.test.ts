import { TaskState } from "@a2a-js/sdk";
import { MemoryEventStore, ToolRegistry } from "@agentloop/core";
import type { RunSummary } from "@agentloop/core/store";
import { final, scriptedModel } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { a2aHandler } from "../src/index.js";
import { clientOf, serveOnLoopback, userText } from "./a2a-served.js";

// A message without a task starts the next task of its context: found by reading that context's
// task ids, never by listing every run of the store (which grows with every conversation served).

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A store whose list() counts its calls: what a message costs in runs read besides its own. */
class CountingStore extends MemoryEventStore {
  lists = 0;
  reads: string[] = [];
  override list(): Promise<RunSummary[]> {
    this.lists++;
    return super.list();
  }
  override read(runId: string) {
    this.reads.push(runId);
    return super.read(runId);
  }
}

describe("a2aHandler numbers a context's tasks", () => {
  it("from the context's own task ids, in reads that grow with the log of its count, not with the store", async () => {
    const store = new CountingStore();
    // Other conversations in the store: a listing would read them all.
    for (let index = 0; index < 50; index++) {
      await store.append(`other-${index}`, {
        seq: 0,
        at: "2026-12-07T00:00:00.000Z",
        type: "run.started",
      } as never);
    }
    const replies = Array.from({ length: 12 }, (_, index) => final(`Reply ${index + 1}.`));
    const server = await serveOnLoopback((url) =>
      a2aHandler({
        model: scriptedModel(replies),
        registry: new ToolRegistry(),
        store,
        card: { name: "talker", description: "Talks.", url },
      }),
    );
    closers.push(server.close);
    const client = await clientOf(server.url);
    const first = (await client.sendMessage(userText("Hi."))) as { id: string; contextId: string };
    expect(first.id).toBe(`${first.contextId}.1`);
    let last = first.id;
    for (let n = 2; n <= 12; n++) {
      store.reads = [];
      const next = (await client.sendMessage(userText(`Message ${n}.`, { contextId: first.contextId }))) as {
        id: string;
        status?: { state: TaskState };
      };
      expect(next.id).toBe(`${first.contextId}.${n}`);
      expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      // The probes for the number: at most twice the bits of the count, each a task of this context.
      const probes = store.reads.filter((runId) => runId.startsWith(`${first.contextId}.`));
      expect(store.reads.every((runId) => runId.startsWith(`${first.contextId}.`))).toBe(true);
      expect(new Set(probes).size).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)) + 3);
      last = next.id;
    }
    expect(last).toBe(`${first.contextId}.12`);
    expect(store.lists).toBe(0);
  });
});
