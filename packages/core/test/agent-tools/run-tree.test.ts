import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  type EventStore,
  final,
  MemoryEventStore,
  readTree,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  TREE_DEPTH_LIMIT,
  type TreeChild,
  type TreeRun,
  toolCall,
} from "../../src/index.js";
import { childCallsOf } from "../../src/run/children/index.js";
import type { StoredEvent } from "../../src/store.js";
import { makeMailRegistry } from "../../src/testing.js";

/** A parent whose two agent tools' children each wait on one email, called in one reply. */
function payingTree() {
  const childOf = (name: string, to: string) => {
    const { registry } = makeMailRegistry();
    const model = scriptedModel([asks(toolCall("e", "send_email", { to })), final(`${name} done.`)]);
    return agentTool({ name, description: `${name}.`, model, registry });
  };
  const registry = new ToolRegistry([childOf("friend", "a@x"), childOf("stranger", "b@x")]);
  const parent = scriptedModel([
    asks(toolCall("c1", "friend", { task: "pay" }), toolCall("c2", "stranger", { task: "pay" })),
    final("Paid."),
  ]);
  return { registry, parent };
}

/** A store that answers `read` from `logs` (anything else is not needed by the tree reader). */
function logsStore(logs: Readonly<Record<string, readonly StoredEvent[]>>): EventStore {
  return { read: async (runId: string) => [...(logs[runId] ?? [])] } as unknown as EventStore;
}

const depthOf = (children: readonly TreeChild<TreeRun>[]): number =>
  children.length === 0 ? 0 : 1 + Math.max(...children.map((child) => depthOf(child.children)));

describe("readTree: the one reader of a tree of runs", () => {
  it("lists a paused tree's waiting calls by chained id, as resumeAgent names them, and each child's state", async () => {
    const { registry, parent } = payingTree();
    const store = new MemoryEventStore();
    const paused = await runAgent("Pay.", parent, registry, { store, runId: "p" });
    expect(paused.status).toBe("awaiting_approval");
    const tree = await readTree(store, "p");
    expect(tree.result).toBeNull();
    expect(tree.treeWaiting.map((call) => call.id)).toEqual(paused.pendingApprovals?.map((call) => call.id));
    expect(tree.treeWaiting.map((call) => call.id)).toEqual(["c1/e", "c2/e"]);
    expect(tree.children.map((child) => [child.callId, child.name])).toEqual([
      ["c1", "friend"],
      ["c2", "stranger"],
    ]);
    for (const child of tree.children) {
      expect(child.run).not.toBe("missing");
      expect(child.waiting.map((call) => call.id)).toEqual([`${child.callId}/e`]);
    }
    // Read for what waits only: the same waiting, from the children of open calls.
    const waitingOnly = await readTree(store, "p", { waitingOnly: true });
    expect(waitingOnly.treeWaiting).toEqual(tree.treeWaiting);
    expect(waitingOnly.children.map((child) => child.callId)).toEqual(["c1", "c2"]);

    const done = await resumeAgent("p", parent, registry, {
      store,
      decisions: { "c1/e": { approved: true }, "c2/e": { approved: false } },
    });
    expect(done.status).toBe("done");
    const after = await readTree(store, "p");
    expect(after.result?.status).toBe("done");
    expect(after.treeWaiting).toEqual([]);
    // Every call finished: no child is read when only what waits is asked.
    expect((await readTree(store, "p", { waitingOnly: true })).children).toEqual([]);
    expect(
      after.children.map((child) => (typeof child.run === "string" ? child.run : child.run.result?.status)),
    ).toEqual(["done", "done"]);
  });

  it("names a child whose log is missing or does not fold, and still reads the rest of the tree", async () => {
    const { registry, parent } = payingTree();
    const store = new MemoryEventStore();
    await runAgent("Pay.", parent, registry, { store, runId: "p" });
    const logs: Record<string, StoredEvent[]> = { p: await store.read("p") };
    const [first, second] = childCallsOf(logs.p ?? []);
    if (first === undefined || second === undefined) throw new Error("the parent started no two children");
    const secondLog = await store.read(second.childRunId);
    // The first child's log is gone; the second's says a call finished that never started.
    const [started] = secondLog;
    if (started === undefined) throw new Error("the second child logged nothing");
    const stray = { type: "tool.finished", seq: 1, at: started.at, callId: "nobody", content: "?" } as StoredEvent;
    logs[second.childRunId] = [started, stray];
    const tree = await readTree(logsStore(logs), "p");
    expect(tree.children.map((child) => child.run)).toEqual(["missing", "refused"]);
    expect(tree.treeWaiting).toEqual([]);
  });

  it("stops at its depth limit on logs that name each other in a loop", async () => {
    const at = "2026-01-01T00:00:00.000Z";
    const loop = (other: string): StoredEvent[] => [
      { type: "run.started", seq: 0, at, parent: { runId: other, callId: "c" } } as unknown as StoredEvent,
      { type: "tool.started", seq: 1, at, callId: "c", name: "agent", childRunId: other },
    ];
    const store = logsStore({ a: loop("b"), b: loop("a") });
    const fold = (): TreeRun => ({ result: null, waiting: [], questions: [] });
    const tree = await readTree(store, "a", { fold });
    expect(depthOf(tree.children)).toBe(TREE_DEPTH_LIMIT);
  });
});
