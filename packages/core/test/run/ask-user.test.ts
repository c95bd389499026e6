import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  agentTool,
  asks,
  askUserTool,
  final,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";

const ask = (id: string, question = "Which city?") => toolCall(id, "ask_user", { question });
const weather = () =>
  new ToolRegistry([
    askUserTool(),
    askUserTool({ name: "pick_day", answer: z.object({ day: z.enum(["mon", "tue"]) }) }),
  ]);

describe("askUserTool: the run asks a person and waits", () => {
  it("pauses awaiting_input with the question, and resumeAgent goes on with the answer as the call's observation", async () => {
    const model = scriptedModel([asks(ask("q1")), final("Lima it is.")]);
    const registry = weather();
    const store = new MemoryEventStore();
    const paused = await runAgent("Weather?", model, registry, { store, runId: "r" });
    expect(paused).toMatchObject({
      status: "awaiting_input",
      pendingQuestions: [{ id: "q1", question: "Which city?" }],
    });
    expect(paused.pendingApprovals).toEqual([]);
    expect(model.seen).toHaveLength(1);
    expect(replayRun(await store.read("r")).snapshot.value).toEqual({ executingTools: "awaitingInput" });
    const result = await resumeAgent("r", model, registry, { store, answers: { q1: "Lima" } });
    expect(result.status).toBe("done");
    expect(result.messages[3]).toMatchObject({ role: "tool", toolCallId: "q1", name: "ask_user", content: '"Lima"' });
    const log = await store.read("r");
    expect(log.find((e) => e.type === "question.answered")).toMatchObject({ callId: "q1", answer: "Lima" });
    expect(replayRun(log).result).toMatchObject({ status: "done", answer: "Lima it is." });
  });

  it("lists the answer's JSON Schema with the question, and refuses in one line an answer that does not fit, logging nothing", async () => {
    const model = scriptedModel([asks(toolCall("d1", "pick_day", { question: "Which day?" })), final("Tuesday.")]);
    const registry = weather();
    const store = new MemoryEventStore();
    const paused = await runAgent("Plan.", model, registry, { store, runId: "r" });
    expect(paused.pendingQuestions?.[0]?.schema).toMatchObject({ type: "object", properties: { day: {} } });
    const before = (await store.read("r")).length;
    const refused = resumeAgent("r", model, registry, { store, answers: { d1: { day: "sun" } } });
    await expect(refused).rejects.toThrow(RangeError);
    await expect(refused).rejects.toThrow(/^run 'r': the answer to 'd1' does not fit: .*day/);
    await expect(refused).rejects.not.toThrow(/\n/);
    expect(await store.read("r")).toHaveLength(before);
    const result = await resumeAgent("r", model, registry, { store, answers: { d1: { day: "tue" } } });
    expect(result.messages[3]).toMatchObject({ content: '{"day":"tue"}' });
  });

  it("refuses answers for questions that are not waiting, naming those that are", async () => {
    const model = scriptedModel([asks(ask("q1")), final("Done.")]);
    const registry = weather();
    const store = new MemoryEventStore();
    await runAgent("Weather?", model, registry, { store, runId: "r" });
    await expect(resumeAgent("r", model, registry, { store, answers: { q9: "x" } })).rejects.toThrow(
      "run 'r': call 'q9' waits for no answer (questions that wait: 'q1')",
    );
    await resumeAgent("r", model, registry, { store, answers: { q1: "Lima" } });
    // Answered once: the same answer again finds a finished run, and nothing more is logged.
    const length = (await store.read("r")).length;
    const again = await resumeAgent("r", model, registry, { store, answers: { q1: "Quito" } });
    expect(again.status).toBe("done");
    expect(await store.read("r")).toHaveLength(length);
  });

  it("refuses a decision for a question and an answer for a call that waits for a decision", async () => {
    const registry = weather();
    registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
    const model = scriptedModel([asks(ask("q1"), toolCall("s1", "send")), final("Sent.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Send.", model, registry, { store, runId: "r" });
    // Both wait in one reply: the decision is asked for first, the question is listed beside it.
    expect(paused).toMatchObject({
      status: "awaiting_approval",
      pendingApprovals: [{ id: "s1" }],
      pendingQuestions: [{ id: "q1" }],
    });
    await expect(resumeAgent("r", model, registry, { store, decisions: { q1: { approved: true } } })).rejects.toThrow(
      /call 'q1' waits for no decision/,
    );
    await expect(resumeAgent("r", model, registry, { store, answers: { s1: "yes" } })).rejects.toThrow(
      /call 's1' waits for no answer/,
    );
    const half = await resumeAgent("r", model, registry, { store, decisions: { s1: { approved: true } } });
    expect(half).toMatchObject({ status: "awaiting_input", pendingQuestions: [{ id: "q1" }] });
    const result = await resumeAgent("r", model, registry, { store, answers: { q1: "Lima" } });
    expect(result.status).toBe("done");
    expect(result.messages.slice(3, 5)).toMatchObject([{ toolCallId: "q1" }, { toolCallId: "s1", content: '"sent"' }]);
  });

  it("takes the decisions and the answers of one reply in one resume", async () => {
    const registry = weather();
    registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
    const model = scriptedModel([asks(ask("q1"), toolCall("s1", "send")), final("Sent.")]);
    const store = new MemoryEventStore();
    await runAgent("Send.", model, registry, { store, runId: "r" });
    const result = await resumeAgent("r", model, registry, {
      store,
      decisions: { s1: { approved: false } },
      answers: { q1: "Lima" },
    });
    expect(result.status).toBe("done");
    expect(result.messages[4]).toMatchObject({ toolCallId: "s1", isError: true });
  });

  it("runs a call without a string question as any call: the model is told what is wrong, and nothing pauses", async () => {
    const model = scriptedModel([asks(toolCall("q1", "ask_user", { question: 3 })), final("Ok.")]);
    const result = await runAgent("Weather?", model, weather());
    expect(result.status).toBe("done");
    expect(result.messages[3]).toMatchObject({ toolCallId: "q1", isError: true });
    expect(result.messages[3]?.content).toMatch(/^ERROR: .*question/);
  });

  it("of two resumes that answer at once, one is taken; the other finds nothing waiting", async () => {
    const model = scriptedModel([asks(ask("q1")), final("Done.")]);
    const registry = weather();
    const store = new MemoryEventStore();
    await runAgent("Weather?", model, registry, { store, runId: "r" });
    const both = await Promise.allSettled([
      resumeAgent("r", model, registry, { store, answers: { q1: "Lima" } }),
      resumeAgent("r", model, registry, { store, answers: { q1: "Quito" } }),
    ]);
    const log = await store.read("r");
    expect(log.filter((e) => e.type === "question.answered")).toHaveLength(1);
    const fulfilled = both.filter((outcome) => outcome.status === "fulfilled");
    expect(fulfilled.length).toBeGreaterThanOrEqual(1);
    for (const outcome of fulfilled) expect(outcome.value.status).toBe("done");
  });

  it("cancels a run that waits for an answer: the question is closed with an ERROR observation", async () => {
    const model = scriptedModel([asks(ask("q1"))]);
    const registry = weather();
    const store = new MemoryEventStore();
    await runAgent("Weather?", model, registry, { store, runId: "r" });
    const controller = new AbortController();
    controller.abort(new Error("closed"));
    const result = await resumeAgent("r", model, registry, { store, signal: controller.signal });
    expect(result.status).toBe("cancelled");
    expect(result.messages[3]).toMatchObject({ toolCallId: "q1", isError: true });
  });

  it("pauses a parent on its child's question, listed by chained id, and routes the answer to the child", async () => {
    const child = scriptedModel([asks(ask("q1", "Which inbox?")), final("Found it in work.")]);
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "R.", model: child, registry: new ToolRegistry([askUserTool()]) }),
    ]);
    const parent = scriptedModel([asks(toolCall("r1", "research", { task: "find the mail" })), final("Found.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Find.", parent, registry, { store, runId: "p" });
    expect(paused).toMatchObject({
      status: "awaiting_input",
      pendingQuestions: [{ id: "r1/q1", question: "Which inbox?" }],
    });
    await expect(resumeAgent("p", parent, registry, { store, answers: { "r1/q9": "x" } })).rejects.toThrow(
      /waits for no answer \(questions that wait: 'r1\/q1'\)/,
    );
    const result = await resumeAgent("p", parent, registry, { store, answers: { "r1/q1": "work" } });
    expect(result).toMatchObject({ status: "done", answer: "Found." });
    expect(result.messages[3]).toMatchObject({ toolCallId: "r1", content: "Found it in work." });
    expect((await store.read("p.r1")).find((e) => e.type === "question.answered")).toMatchObject({ answer: "work" });
  });
});
