import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  final,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  type ToolCall,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { searchTree } from "./agent-tree-fixture.js";

const research = (id: string) => toolCall(id, "research", { task: "email ana the result" });
const email = (id: string, to = "ana") => toolCall(id, "send_email", { to });

describe("approvals across the tree", () => {
  it("pauses the child and the parent on a child's call that needs approval, listing it with its chained id (openai-agents-js#243, mastra#12552)", async () => {
    const { child, registry, sent } = searchTree([asks(email("e1")), final("Sent.")]);
    const parent = scriptedModel([asks(research("r1")), final("Done: sent.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Email ana.", parent, registry, { store, runId: "p" });
    expect(paused.status).toBe("awaiting_approval");
    expect(paused.pendingApprovals).toEqual([{ id: "r1/e1", name: "send_email", args: { to: "ana" } }]);
    // Nothing ran, and the parent's model was not asked to go on without the child's answer.
    expect(sent).toEqual([]);
    expect(parent.seen).toHaveLength(1);
    expect(child.seen).toHaveLength(1);
    const parentLog = await store.read("p");
    // The call started its child, and is paused in it: the pause is logged with what waits below.
    expect(parentLog.at(-2)).toMatchObject({ type: "tool.started", callId: "r1", childRunId: "p.r1" });
    expect(parentLog.at(-1)).toMatchObject({
      type: "tool.paused",
      callId: "r1",
      pending: [{ id: "r1/e1", name: "send_email", args: { to: "ana" } }],
      questions: [],
    });
    expect(parentLog.some((e) => e.type === "tool.finished")).toBe(false);
  });

  it("resumes the child, then the parent, with a decision routed by chained id; nothing logged is asked again (openai-agents-js#680, #916)", async () => {
    const { child, registry, sent } = searchTree([asks(email("e1")), final("Sent to ana.")]);
    const parent = scriptedModel([asks(research("r1")), final("Done: sent.")]);
    const store = new MemoryEventStore();
    await runAgent("Email ana.", parent, registry, { store, runId: "p" });
    const result = await resumeAgent("p", parent, registry, { store, decisions: { "r1/e1": { approved: true } } });
    expect(result.status).toBe("done");
    expect(result.answer).toBe("Done: sent.");
    expect(sent).toEqual(["ana"]);
    expect(result.messages[3]).toMatchObject({ toolCallId: "r1", content: "Sent to ana." });
    expect(child.seen).toHaveLength(2);
    expect(parent.seen).toHaveLength(2);
    const childLog = await store.read("p.r1");
    expect(childLog.filter((e) => e.type === "run.started")).toHaveLength(1);
    expect(childLog.find((e) => e.type === "approval.decided")).toMatchObject({ callId: "e1", approved: true });
    // The parent's tokens hold the child's whole run, both stretches of it.
    expect((await store.read("p")).find((e) => e.type === "tool.finished")).toMatchObject({
      tokens: replayRun(childLog).result?.tokens,
    });
  });

  it("tells the child of a denial given to the parent", async () => {
    const { registry, sent } = searchTree([asks(email("e1")), final("I was not allowed to send it.")]);
    const parent = scriptedModel([asks(research("r1")), final("Not sent.")]);
    const store = new MemoryEventStore();
    await runAgent("Email ana.", parent, registry, { store, runId: "p" });
    const decisions = { "r1/e1": { approved: false, reason: "not now" } };
    const result = await resumeAgent("p", parent, registry, { store, decisions });
    expect(result.status).toBe("done");
    expect(sent).toEqual([]);
    const child = replayRun(await store.read("p.r1")).result;
    expect(child?.messages[3]).toMatchObject({ role: "tool", toolCallId: "e1", isError: true });
  });

  it("never applies a decision to another run's call with the same id: parent and child both wait on call_1", async () => {
    const { child, registry, sent } = searchTree([asks(email("call_1", "child")), final("Child sent.")]);
    let parentSent = 0;
    registry.register(
      "send_email",
      "Send an email.",
      { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
      () => ++parentSent,
      { needsApproval: true },
    );
    const parent = scriptedModel([asks(email("call_1", "parent"), research("r1")), final("Both done.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Email twice.", parent, registry, { store, runId: "p" });
    expect(paused.pendingApprovals?.map((call: ToolCall) => call.id)).toEqual(["call_1", "r1/call_1"]);
    const once = await resumeAgent("p", parent, registry, { store, decisions: { call_1: { approved: true } } });
    expect(parentSent).toBe(1);
    expect(sent).toEqual([]);
    expect(once.status).toBe("awaiting_approval");
    expect(once.pendingApprovals).toEqual([{ id: "r1/call_1", name: "send_email", args: { to: "child" } }]);
    expect(child.seen).toHaveLength(1);
    const done = await resumeAgent("p", parent, registry, { store, decisions: { "r1/call_1": { approved: true } } });
    expect(done.status).toBe("done");
    expect(parentSent).toBe(1);
    expect(sent).toEqual(["child"]);
  });

  it("refuses a decision for a chained id that waits for none, before anything runs", async () => {
    const { registry, sent } = searchTree([asks(email("e1")), final("Sent.")]);
    const parent = scriptedModel([asks(research("r1")), final("Done.")]);
    const store = new MemoryEventStore();
    await runAgent("Email ana.", parent, registry, { store, runId: "p" });
    const before = (await store.read("p")).length;
    await expect(
      resumeAgent("p", parent, registry, { store, decisions: { "r1/e9": { approved: true } } }),
    ).rejects.toThrow("run 'p': call 'r1/e9' waits for no decision (calls that wait: 'r1/e1')");
    expect((await store.read("p")).length).toBe(before);
    expect(sent).toEqual([]);
  });

  it("shows a live approver the child's call with its chained id", async () => {
    const { registry, sent } = searchTree([asks(email("e1")), final("Sent.")]);
    const asked: string[] = [];
    const approve = (call: ToolCall) => {
      asked.push(call.id);
      return { approved: true };
    };
    const result = await runAgent("Email ana.", scriptedModel([asks(research("r1")), final("Done.")]), registry, {
      approve,
    });
    expect(result.status).toBe("done");
    expect(asked).toEqual(["r1/e1"]);
    expect(sent).toEqual(["ana"]);
  });

  it("chains ids at any depth: a grandchild's call waits as r1/g1/e1 and its decision reaches it", async () => {
    const sent: string[] = [];
    const mail = new ToolRegistry();
    mail.register(
      "send_email",
      "Send.",
      { type: "object", properties: { to: { type: "string" } } },
      ({ to }: { to: string }) => sent.push(to),
      {
        needsApproval: true,
      },
    );
    const grandchild = scriptedModel([asks(email("e1")), final("Mailed.")]);
    const mailer = agentTool({ name: "mailer", description: "Mails.", model: grandchild, registry: mail });
    const middle = scriptedModel([asks(toolCall("g1", "mailer", { task: "mail ana" })), final("Mailer says: mailed.")]);
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "R.", model: middle, registry: new ToolRegistry([mailer]) }),
    ]);
    const parent = scriptedModel([asks(research("r1")), final("All done.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Go.", parent, registry, { store, runId: "p" });
    expect(paused.pendingApprovals).toEqual([{ id: "r1/g1/e1", name: "send_email", args: { to: "ana" } }]);
    const result = await resumeAgent("p", parent, registry, { store, decisions: { "r1/g1/e1": { approved: true } } });
    expect(result.status).toBe("done");
    expect(sent).toEqual(["ana"]);
    expect(grandchild.seen).toHaveLength(2);
    expect(middle.seen).toHaveLength(2);
  });
});
