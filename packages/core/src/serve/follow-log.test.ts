import { describe, expect, it } from "vitest";
import type { AgentResult, Model } from "../data/index.js";
import { MemoryEventStore } from "../log/index.js";
import { type AgentStreamEvent, continueAgent, runAgent } from "../run/index.js";
import { asks, final, scriptedModel, toolCall } from "../testing/index.js";
import { ToolRegistry } from "../tools/index.js";
import { conversationState, decideTurn } from "./conversation.js";
import { followLog, isHeld } from "./follow-log.js";
import { logChanges } from "./log-changes.js";

/** A registry whose `slow` tool runs until `open()`; `entered` resolves once it runs, and `send` needs approval. */
function gated() {
  let open: () => void = () => {};
  let entered: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const running = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const registry = new ToolRegistry();
  registry.register("slow", "Slow.", { type: "object", properties: {} }, async () => {
    entered();
    await gate;
    return "slow done";
  });
  registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
  return { registry, open, running };
}

/** What a follower was told, as kinds (a logged event as its type), and its result. */
async function followed(feed: AsyncIterable<AgentStreamEvent>): Promise<string[]> {
  const kinds: string[] = [];
  for await (const event of feed) kinds.push(event.type === "logged" ? event.event.type : event.type);
  return kinds;
}

describe("followLog: a turn another writer drives, followed from its log alone", () => {
  it("a held run's turn is told from its start to its end, as the live run told it, and ends with its result", async () => {
    const store = new MemoryEventStore();
    const { registry, open, running } = gated();
    const model = scriptedModel([asks(toolCall("s1", "slow")), final("Done.")]);
    const run = runAgent("Go.", model, registry, { store, runId: "r" });
    await running;
    // Another writer (here: a run driven outside the serving core) holds the run: the log says "held".
    const state = await conversationState({ store }, undefined, "r");
    expect(state.kind).toBe("held");
    const step = decideTurn("chat", "r", state, { kind: "read" });
    expect(step).toEqual({ kind: "follow-log", from: 0 });
    const feed = followLog(store, "r", { from: 0 });
    const kinds = followed(feed);
    open();
    expect(await kinds).toEqual([
      "step-started",
      "model.replied",
      "tool.started",
      "tool.finished",
      "step-started",
      "model.replied",
      "run.finished",
      "finished",
    ]);
    const result: AgentResult = await feed.result;
    expect(result).toMatchObject({ status: "done", answer: "Done.", runId: "r" });
    expect((await run).answer).toBe("Done.");
  });

  it("a turn that pauses for a decision ends, once its writer let go, with the paused result and the call's decision-requested", async () => {
    const store = new MemoryEventStore();
    const { registry, open, running } = gated();
    const model = scriptedModel([asks(toolCall("s1", "slow"), toolCall("e1", "send")), final("Sent.")]);
    const run = runAgent("Go.", model, registry, { store, runId: "p" });
    await running;
    const feed = followLog(store, "p", { from: 0 });
    const kinds = followed(feed);
    open();
    expect((await kinds).slice(-3)).toEqual(["tool.finished", "decision-requested", "finished"]);
    expect(await feed.result).toMatchObject({ status: "awaiting_approval", pendingApprovals: [{ id: "e1" }] });
    expect((await run).status).toBe("awaiting_approval");
    expect(await isHeld(store, "p")).toBe(false);
  });

  it("a turn whose writer went away unfinished rejects the follower: nothing waits on it forever", async () => {
    const store = new MemoryEventStore();
    const { registry, open, running } = gated();
    let calls = 0;
    const model: Model = () => {
      calls += 1;
      if (calls === 1) return asks(toolCall("s1", "slow"));
      throw new Error("the provider is down");
    };
    const run = runAgent("Go.", model, registry, { store, runId: "x" }).catch((error: unknown) => error);
    await running;
    const feed = followLog(store, "x", { from: 0 });
    open();
    expect(await run).toBeInstanceOf(Error);
    await expect(feed.result).rejects.toThrow("the turn of run 'x' was cut off");
    expect((await conversationState({ store }, undefined, "x")).kind).toBe("cut-off");
  });

  it("a later turn is followed from its own start: the earlier turns are read, not told", async () => {
    const store = new MemoryEventStore();
    const { registry, open, running } = gated();
    const model = scriptedModel([final("First."), asks(toolCall("s1", "slow")), final("Second.")]);
    await runAgent("One.", model, registry, { store, runId: "t" });
    const second = continueAgent("t", "Two.", model, registry, { store });
    await running;
    const state = await conversationState({ store }, undefined, "t");
    const step = decideTurn("chat", "t", state, { kind: "read" });
    expect(step).toMatchObject({ kind: "follow-log" });
    const from = (step as { from: number }).from;
    const feed = followLog(store, "t", { from });
    const told: AgentStreamEvent[] = [];
    const reading = (async () => {
      for await (const event of feed) told.push(event);
    })();
    open();
    await reading;
    // The first turn's model call is counted, not told: the second turn's calls are steps 2 and 3.
    expect(told.filter((event) => event.type === "step-started").map((event) => event.step)).toEqual([2, 3]);
    expect(told.at(-1)).toMatchObject({ type: "finished", result: { answer: "Second." } });
    await second;
  });

  it("a store's watch is shared by every reader in the process, and ended with the last", async () => {
    const store = new MemoryEventStore();
    let opened = 0;
    let closed = 0;
    const listeners: ((runId: string) => void)[] = [];
    const watched = Object.assign(store, {
      watch: async (onChange: (runId: string) => void) => {
        opened += 1;
        listeners.push(onChange);
        return {
          close: async () => {
            closed += 1;
          },
        };
      },
    });
    const one = logChanges(watched);
    const two = logChanges(watched);
    await Promise.all([one.ready, two.ready]);
    expect([opened, one.told(), two.told()]).toEqual([1, true, true]);
    const waiting = one.wait(new Set(["r"]), 60_000);
    listeners[0]?.("other");
    listeners[0]?.("r");
    expect(await waiting).toBe(true);
    expect(await two.wait(new Set(["r"]), 60_000)).toBe(true);
    await one.close();
    expect(closed).toBe(0);
    await two.close();
    expect(closed).toBe(1);
  });
});
