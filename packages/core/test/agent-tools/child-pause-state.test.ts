import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  askUserTool,
  final,
  forkRun,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { positionOf } from "../../src/machine.js";
import { searchTree } from "./agent-tree-fixture.js";

const research = (id: string) => toolCall(id, "research", { task: "mail ana" });
const email = (id: string) => toolCall(id, "send_email", { to: "ana" });

describe("a child's pause is a state of the parent's call", () => {
  it("logs the pause with what waits below, and the parent's replayed machine waits in awaitingDecision with the chained call", async () => {
    const { registry } = searchTree([asks(email("e1")), final("Sent.")]);
    const parent = scriptedModel([asks(research("r1")), final("Done.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Mail ana.", parent, registry, { store, runId: "p" });
    const replay = replayRun(await store.read("p"), { runId: "p" });
    expect(replay.snapshot.matches({ executingTools: "awaitingDecision" })).toBe(true);
    expect(replay.context.childPauses).toEqual([
      { callId: "r1", pending: [{ id: "r1/e1", name: "send_email", args: { to: "ana" } }], questions: [] },
    ]);
    expect(positionOf(replay.snapshot).state).toBe("executingTools.awaitingDecision");
    expect(paused.status).toBe("awaiting_approval");
    expect(paused.pendingApprovals).toEqual([{ id: "r1/e1", name: "send_email", args: { to: "ana" } }]);
  });

  it("stays paused, logging nothing, when resumed with nothing for what waits below; resumed with a decision, the call runs again and finishes", async () => {
    const { registry, sent } = searchTree([asks(email("e1")), final("Sent.")]);
    const parent = scriptedModel([asks(research("r1")), final("Done.")]);
    const store = new MemoryEventStore();
    await runAgent("Mail ana.", parent, registry, { store, runId: "p" });
    const before = (await store.read("p")).length;
    const again = await resumeAgent("p", parent, registry, { store });
    expect(again.status).toBe("awaiting_approval");
    expect(again.pendingApprovals?.map((call) => call.id)).toEqual(["r1/e1"]);
    expect(await store.read("p")).toHaveLength(before);
    const done = await resumeAgent("p", parent, registry, { store, decisions: { "r1/e1": { approved: true } } });
    expect(done.status).toBe("done");
    expect(sent).toEqual(["ana"]);
    const types = (await store.read("p")).map((event) => event.type);
    expect(types.slice(before - 2, before + 2)).toEqual([
      "tool.started",
      "tool.paused",
      "tool.resumed",
      "tool.finished",
    ]);
    // One start of the child, however many stretches it ran in.
    expect(types.filter((type) => type === "tool.started")).toHaveLength(1);
  });

  it("resumed with an approver and no decisions, lets the approver decide below the call, as before; undecided, pauses it again", async () => {
    const { registry, sent } = searchTree([asks(email("e1")), final("Sent.")]);
    const parent = scriptedModel([asks(research("r1")), final("Done.")]);
    const store = new MemoryEventStore();
    await runAgent("Mail ana.", parent, registry, { store, runId: "p" });
    const asked: string[] = [];
    const again = await resumeAgent("p", parent, registry, {
      store,
      approve: (call) => {
        asked.push(call.id);
        return undefined;
      },
    });
    expect(again.pendingApprovals?.map((call) => call.id)).toEqual(["r1/e1"]);
    expect(asked).toEqual(["r1/e1"]);
    const types = (await store.read("p")).map((event) => event.type);
    expect(types.slice(-3)).toEqual(["tool.paused", "tool.resumed", "tool.paused"]);
    const done = await resumeAgent("p", parent, registry, { store, approve: () => ({ approved: true }) });
    expect(done.status).toBe("done");
    expect(sent).toEqual(["ana"]);
  });

  it("waits in awaitingInput, awaiting_input, when only a question waits below", async () => {
    const child = scriptedModel([asks(toolCall("q1", "ask_user", { question: "Which inbox?" })), final("Found.")]);
    const inner = new ToolRegistry([askUserTool()]);
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "R.", model: child, registry: inner }),
    ]);
    const parent = scriptedModel([asks(research("r1")), final("Done.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Find.", parent, registry, { store, runId: "p" });
    expect(paused.status).toBe("awaiting_input");
    expect(paused.pendingQuestions).toEqual([{ id: "r1/q1", question: "Which inbox?" }]);
    const replay = replayRun(await store.read("p"), { runId: "p" });
    expect(replay.snapshot.matches({ executingTools: "awaitingInput" })).toBe(true);
    const done = await resumeAgent("p", parent, registry, { store, answers: { "r1/q1": "work" } });
    expect(done.status).toBe("done");
    expect(done.messages[3]).toMatchObject({ toolCallId: "r1", content: "Found." });
  });

  it("pauses again, logging the new wait, when the child resumed with one decision waits on another", async () => {
    const { registry, sent } = searchTree([
      asks(email("e1")),
      asks(toolCall("e2", "send_email", { to: "bo" })),
      final("Sent."),
    ]);
    const parent = scriptedModel([asks(research("r1")), final("Done.")]);
    const store = new MemoryEventStore();
    await runAgent("Mail.", parent, registry, { store, runId: "p" });
    const second = await resumeAgent("p", parent, registry, { store, decisions: { "r1/e1": { approved: true } } });
    expect(second.status).toBe("awaiting_approval");
    expect(second.pendingApprovals?.map((call) => call.id)).toEqual(["r1/e2"]);
    const pauses = (await store.read("p")).filter((event) => event.type === "tool.paused");
    expect(pauses.map((event) => (event.type === "tool.paused" ? event.pending.map((c) => c.id) : []))).toEqual([
      ["r1/e1"],
      ["r1/e2"],
    ]);
    const done = await resumeAgent("p", parent, registry, { store, decisions: { "r1/e2": { approved: true } } });
    expect(done.status).toBe("done");
    expect(sent).toEqual(["ana", "bo"]);
  });

  it("a fork of a paused parent leaves the pause out with the call's start: the call runs afresh in the fork, with a child of its own", async () => {
    // The scripted models go on from where the original stopped: the fork's child is asked its second reply.
    const { registry, sent } = searchTree([asks(email("e1")), asks(email("e1")), final("Sent.")]);
    const parent = scriptedModel([asks(research("r1")), final("Done.")]);
    const store = new MemoryEventStore();
    await runAgent("Mail ana.", parent, registry, { store, runId: "p" });
    const forkId = await forkRun(store, "p", { runId: "f" });
    const forked = await store.read(forkId);
    expect(forked.map((event) => event.type)).not.toContain("tool.paused");
    expect(forked.map((event) => event.type)).not.toContain("tool.started");
    const paused = await resumeAgent(forkId, parent, registry, { store });
    expect(paused.pendingApprovals?.map((call) => call.id)).toEqual(["r1/e1"]);
    expect((await store.read("f.r1"))[0]).toMatchObject({ type: "run.started", parent: { runId: "f", callId: "r1" } });
    expect(sent).toEqual([]);
  });
});
