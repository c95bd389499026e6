import { describe, expect, it } from "vitest";
import {
  asks,
  continueAgent,
  final,
  forkRun,
  MemoryEventStore,
  type Message,
  replayRun,
  resumeAgent,
  runAgent,
  toolCall,
} from "../../src/index.js";
import { triageAndBilling } from "./handoff-fixture.js";

const TASK = "Refund order 7, please.";
/** Every assistant call is answered by the tool messages right after it, and every tool message answers one. */
function paired(messages: readonly Message[]): boolean {
  let owed: string[] = [];
  for (const message of messages) {
    if (message.role === "tool") {
      if (owed[0] !== message.toolCallId) return false;
      owed = owed.slice(1);
      continue;
    }
    if (owed.length > 0) return false;
    if (message.role === "assistant") owed = message.toolCalls.map((call) => call.id);
  }
  return owed.length === 0;
}

describe("a handoff's inputFilter shapes what the target sees", () => {
  it("logs what the filter returned with the handoff, so replay and fork never call it and show the same", async () => {
    let filtered = 0;
    const onlyUsers = (messages: readonly Message[]) => {
      filtered += 1;
      return messages.filter((message) => message.role === "user");
    };
    const { triage, billing, triageTools } = triageAndBilling(
      [asks(toolCall("l1", "lookup", { order: "7" })), asks(toolCall("h1", "transfer_to_billing"))],
      [final("Refunded.")],
      { toBilling: { inputFilter: onlyUsers } },
    );
    const store = new MemoryEventStore();
    const result = await runAgent(TASK, triage, triageTools, { store, runId: "r" });
    expect(result).toMatchObject({ status: "done", agent: "billing" });
    expect(filtered).toBe(1);
    expect(billing.seen[0]).toEqual([
      { role: "system", content: "You are billing. Refund orders." },
      { role: "user", content: TASK },
    ]);
    // The trace keeps every message: the filter shaped a view, not the list.
    expect(result.messages).toHaveLength(7);
    const log = await store.read("r");
    expect(log.find((event) => event.type === "handoff")).toMatchObject({
      callId: "h1",
      // The agent the run started with is named by billing's handoff back to its very registry.
      from: "triage",
      to: "billing",
      messages: [{ role: "user", content: TASK }],
    });
    expect(replayRun(log).result).toMatchObject({ status: "done", agent: "billing", messages: result.messages });
    const forkId = await forkRun(store, "r");
    const forked = replayRun(await store.read(forkId));
    expect(forked.result?.messages).toEqual(result.messages);
    expect(filtered).toBe(1);
  });

  it("drops from what the filter returned every call without its result and every result without its call", async () => {
    // A filter that keeps the assistant messages and drops every tool message: each call would be an orphan.
    const noResults = (messages: readonly Message[]) => messages.filter((message) => message.role !== "tool");
    const { triage, billing, triageTools } = triageAndBilling(
      [asks(toolCall("l1", "lookup", { order: "7" })), asks(toolCall("h1", "transfer_to_billing"))],
      [final("Refunded.")],
      { toBilling: { inputFilter: noResults } },
    );
    await runAgent(TASK, triage, triageTools, {});
    const seen = billing.seen[0] ?? [];
    expect(paired(seen)).toBe(true);
    expect(seen.every((message) => message.role !== "assistant" || message.toolCalls.length === 0)).toBe(true);
  });

  it("drops the reasoning of a message whose calls the filter left unanswered, never sending reasoning without its call", async () => {
    const reasoning = [{ type: "reasoning" as const, text: "look it up first", signature: "sig" }];
    const thinking = { ...asks(toolCall("l1", "lookup", { order: "7" })), content: "Looking.", reasoning };
    const noResults = (messages: readonly Message[]) => messages.filter((message) => message.role !== "tool");
    const { triage, billing, triageTools } = triageAndBilling(
      [thinking, asks(toolCall("h1", "transfer_to_billing"))],
      [final("Refunded.")],
      { toBilling: { inputFilter: noResults } },
    );
    await runAgent(TASK, triage, triageTools, {});
    const kept = (billing.seen[0] ?? []).filter((message) => message.role === "assistant");
    expect(kept).toEqual([{ role: "assistant", content: "Looking.", toolCalls: [] }]);
  });

  it("gives every agent the whole conversation again when it is handed back, whatever an earlier filter hid", async () => {
    const lastUser = (messages: readonly Message[]) => messages.filter((message) => message.role === "user").slice(-1);
    const { triage, billing, triageTools } = triageAndBilling(
      [asks(toolCall("l1", "lookup", { order: "7" })), asks(toolCall("h1", "transfer_to_billing")), final("Back.")],
      [asks(toolCall("r1", "refund", { order: "7" })), asks(toolCall("h2", "transfer_to_triage"))],
      { toBilling: { inputFilter: lastUser } },
    );
    const result = await runAgent(TASK, triage, triageTools, {});
    expect(result).toMatchObject({ status: "done", agent: "triage", answer: "Back." });
    expect(billing.seen[0]).toHaveLength(2);
    // Back with triage (no filter on that handoff): it sees its own lookup and billing's refund.
    const back = triage.seen[2] ?? [];
    expect(back[0]).toEqual({ role: "system", content: "You are triage." });
    expect(back.slice(1)).toEqual(result.messages.slice(1, -1));
    expect(paired(back)).toBe(true);
  });

  it("refuses, failing the run, a filter that returns no list of messages", async () => {
    const { triage, triageTools } = triageAndBilling([asks(toolCall("h1", "transfer_to_billing"))], [final("x")], {
      toBilling: { inputFilter: () => "none" as unknown as Message[] },
    });
    await expect(runAgent(TASK, triage, triageTools, {})).rejects.toThrow(
      "the inputFilter of transfer_to_billing must return a list of messages; got",
    );
  });
});

describe("who answers next", () => {
  it("continueAgent goes on with the agent that answered last, found by name from the starting agent's tools", async () => {
    const store = new MemoryEventStore();
    const first = triageAndBilling([asks(toolCall("h1", "transfer_to_billing"))], [final("Refunded.")]);
    await runAgent(TASK, first.triage, first.triageTools, { store, runId: "r", name: "triage" });
    // A new process: new models and registries, built the same way; the log says billing answers.
    const again = triageAndBilling([final("triage must not answer")], [final("You are welcome.")]);
    const next = await continueAgent("r", "Thanks!", again.triage, again.triageTools, { store });
    expect(next).toMatchObject({ status: "done", answer: "You are welcome.", agent: "billing" });
    expect(again.triage.seen).toHaveLength(0);
    expect(again.billing.seen[0]?.[0]).toEqual({ role: "system", content: "You are billing. Refund orders." });
    expect(again.billing.seen[0]?.at(-1)).toEqual({ role: "user", content: "Thanks!" });
  });

  it("lets the agent that goes on hand back when the next message is not for it, within the same turn", async () => {
    const store = new MemoryEventStore();
    const first = triageAndBilling([asks(toolCall("h1", "transfer_to_billing"))], [final("Refunded.")]);
    await runAgent(TASK, first.triage, first.triageTools, { store, runId: "r", name: "triage" });
    const again = triageAndBilling(
      [asks(toolCall("l2", "lookup", { order: "8" })), final("Order 8 is 42.")],
      [asks(toolCall("h2", "transfer_to_triage"))],
    );
    const next = await continueAgent("r", "And what is order 8?", again.triage, again.triageTools, { store });
    expect(next).toMatchObject({ status: "done", answer: "Order 8 is 42.", agent: "triage" });
  });

  it("resumes a paused target with the target's tools, and refuses a registry whose agents differ from the log's", async () => {
    const store = new MemoryEventStore();
    const first = triageAndBilling([asks(toolCall("h1", "transfer_to_billing"))], [asks(toolCall("r1", "refund"))], {
      billingSystem: "You are billing.",
    });
    const paused = await runAgent(TASK, first.triage, first.triageTools, { store, runId: "r", maxSteps: 1 });
    expect(paused).toMatchObject({ status: "step_limit", agent: "billing" });
    const other = triageAndBilling([], [], { billingSystem: "You are billing." });
    other.billingTools.register("extra", "More.", { type: "object" }, () => "x");
    await expect(continueAgent("r", "Go on.", other.triage, other.triageTools, { store })).rejects.toThrow(
      "agent 'billing' has other tools than the run was started with",
    );
    await expect(resumeAgent("missing", other.triage, other.triageTools, { store })).rejects.toThrow();
  });
});
