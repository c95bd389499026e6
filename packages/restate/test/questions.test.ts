import {
  asks,
  askUserTool,
  final,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentWorkflow, type RunStatus } from "../src/index.js";
import { waitUntil } from "../src/testing/wait-until.js";
import { stepModel } from "./support/in-process.js";
import { type InProcessHarness, openInProcess, untimed } from "./support/in-process-harness.js";

// A question of an ask-user tool is a durable promise, as a decision is: the workflow waits for
// it, `answer` resolves it once the answer fits the question's shape, and the run goes on as
// runAgent goes on after resumeAgent with the same answer.

const CITY = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;

function askingTools(): ToolRegistry {
  const registry = new ToolRegistry([askUserTool({ answer: CITY })]);
  registry.register("get_weather", "Celsius in a city.", { type: "object" }, (args) => ({ ...args, celsius: 30 }));
  registry.register("send", "Sends a note.", { type: "object" }, () => "sent", { needsApproval: true });
  return registry;
}

const ASK = [
  asks(toolCall("q1", "ask_user", { question: "Which city?" })),
  asks(toolCall("w1", "get_weather", { city: "Pune" })),
  final("30 C in Pune."),
];
/** A question and a call that needs approval in one reply. */
const BOTH = [asks(toolCall("q1", "ask_user", { question: "Which city?" }), toolCall("s1", "send")), final("Sent.")];

/** A tool that asks which city while it runs: the call waits on the answer, then is made again with it. */
function midCallTools(made: string[] = []): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("book", "Books a room.", { type: "object" }, async (_args, { ask }) => {
    const { city } = (await ask("Which city?", CITY)) as { city: string };
    made.push(city);
    return `booked in ${city}`;
  });
  return registry;
}
const BOOK = [asks(toolCall("b1", "book", {})), final("Booked.")];

const store = new MemoryEventStore();
const asking = agentWorkflow({ name: "asking", model: stepModel(ASK), registry: askingTools(), store });
const both = agentWorkflow({ name: "both", model: stepModel(BOTH), registry: askingTools(), store });
const booked: string[] = [];
const midCall = agentWorkflow({ name: "midCall", model: stepModel(BOOK), registry: midCallTools(booked), store });

describe("questions on a real Restate server", () => {
  let restate: InProcessHarness;

  beforeAll(async () => {
    restate = await openInProcess([asking, both, midCall]);
  }, hangGuard(60_000));

  afterAll(async () => {
    await restate?.close();
  });

  async function statusWhen(workflow: string, runId: string, holds: (status: RunStatus) => boolean) {
    const run = restate.run(workflow, runId);
    return waitUntil(
      async () => {
        const status = await run.status();
        return holds(status) ? status : null;
      },
      { what: `the status of ${runId}` },
    );
  }

  it("waits awaiting_input for the answer; the run goes on exactly as runAgent then resumeAgent with it", async () => {
    const run = restate.run("asking", "ask-1");
    await run.workflowSubmit({ task: "Weather?" });
    const status = await statusWhen("asking", "ask-1", (s) => s.phase === "awaiting_input");
    expect(status).toMatchObject({ state: "executingTools.awaitingInput", awaitingDecision: [], steps: 1 });
    expect(status.pendingQuestions).toEqual([{ id: "q1", question: "Which city?", schema: CITY }]);
    await run.answer({ callId: "q1", answer: { city: "Pune" } });
    const durable = await run.workflowAttach();

    const local = new MemoryEventStore();
    const paused = await runAgent("Weather?", stepModel(ASK), askingTools(), { store: local, runId: "ask-1" });
    expect(paused).toMatchObject({ status: "awaiting_input", pendingQuestions: status.pendingQuestions });
    const answers = { q1: { city: "Pune" } };
    const live = await resumeAgent("ask-1", stepModel(ASK), askingTools(), { store: local, answers });

    expect(durable).toMatchObject({ status: "done", answer: "30 C in Pune.", steps: 3 });
    expect(durable).toEqual(live);
    const mirrored = await store.read("ask-1");
    expect(untimed(mirrored)).toEqual(untimed(await local.read("ask-1")));
    expect(mirrored.find((event) => event.type === "question.answered")).toMatchObject({
      callId: "q1",
      answer: { city: "Pune" },
    });
    const { runId: _runId, ...result } = durable as object & { runId: string };
    expect(replayRun(mirrored).result).toEqual(result);
    expect(await run.status()).toMatchObject({ phase: "finished", pendingQuestions: [] });
  });

  it("refuses in one line an answer that does not fit, one for a question that does not wait, and a second one", async () => {
    const run = restate.run("asking", "ask-2");
    await run.workflowSubmit({ task: "Weather?" });
    await statusWhen("asking", "ask-2", (s) => s.phase === "awaiting_input");

    // The ingress's error body carries the handler's message: one line.
    const refused = await Promise.resolve(run.answer({ callId: "q1", answer: { town: "Pune" } })).then(
      () => null,
      (error: Error) => JSON.parse(error.message.split("\n")[1] ?? "{}"),
    );
    expect(refused).toEqual({
      code: 400,
      message: "run 'ask-2': the answer to 'q1' does not fit: missing required argument 'city'",
      source: "invocation",
    });
    await expect(run.answer({ callId: "q9", answer: { city: "Pune" } })).rejects.toThrow(
      /run 'ask-2': call 'q9' waits for no answer \(questions that wait: 'q1'\)/,
    );
    await expect(run.answer({ callId: "q1" } as never)).rejects.toThrow(/the answer to 'q1' is missing/);
    // Nothing was taken: the question still waits, and nothing was logged for it.
    expect(await run.status()).toMatchObject({ phase: "awaiting_input", pendingQuestions: [{ id: "q1" }] });
    expect((await store.read("ask-2")).some((event) => event.type === "question.answered")).toBe(false);

    await run.answer({ callId: "q1", answer: { city: "Delhi" } });
    await expect(run.answer({ callId: "q1", answer: { city: "Goa" } })).rejects.toThrow(
      /call 'q1' was already answered/,
    );
    const result = await run.workflowAttach();
    expect(result.messages.find((m) => m.role === "tool" && m.toolCallId === "q1")?.content).toBe('{"city":"Delhi"}');
    const answered = (await store.read("ask-2")).filter((event) => event.type === "question.answered");
    expect(answered).toMatchObject([{ callId: "q1", answer: { city: "Delhi" } }]);
    await expect(restate.run("asking", "nobody").answer({ callId: "q1", answer: {} })).rejects.toThrow(
      /call 'q1' waits for no answer \(questions that wait: none\)/,
    );
  });

  it("a question and an approval in one reply: awaiting_approval lists both, and each is given by its own handler", async () => {
    const run = restate.run("both", "both-1");
    await run.workflowSubmit({ task: "Send a note." });
    const status = await statusWhen("both", "both-1", (s) => s.phase === "awaiting_approval");
    expect(status.awaitingDecision.map((call) => call.id)).toEqual(["s1"]);
    expect(status.pendingQuestions.map((question) => question.id)).toEqual(["q1"]);
    await expect(run.decide({ callId: "q1", approved: true })).rejects.toThrow(
      /call 'q1' does not wait for a decision/,
    );
    await expect(run.answer({ callId: "s1", answer: { city: "Pune" } })).rejects.toThrow(
      /call 's1' waits for no answer/,
    );
    await run.decide({ callId: "s1", approved: true });
    await statusWhen("both", "both-1", (s) => s.phase === "awaiting_input");
    await run.answer({ callId: "q1", answer: { city: "Pune" } });
    expect(await run.workflowAttach()).toMatchObject({ status: "done", answer: "Sent." });
  });

  it("a tool that asks while it runs: the call waits as a question, and is made again with the answer, as in runAgent", async () => {
    const run = restate.run("midCall", "mid-1");
    await run.workflowSubmit({ task: "Book a room." });
    const status = await statusWhen("midCall", "mid-1", (s) => s.phase === "awaiting_input");
    expect(status.pendingQuestions).toEqual([{ id: "b1", question: "Which city?", schema: CITY }]);
    expect(booked).toEqual([]);
    // The answer must fit the shape the tool gave with its question.
    await expect(run.answer({ callId: "b1", answer: { town: "Pune" } })).rejects.toThrow(
      /the answer to 'b1' does not fit: missing required argument 'city'/,
    );
    await run.answer({ callId: "b1", answer: { city: "Pune" } });
    const durable = await run.workflowAttach();
    expect(durable).toMatchObject({ status: "done", answer: "Booked." });
    expect(booked).toEqual(["Pune"]);

    const local = new MemoryEventStore();
    const paused = await runAgent("Book a room.", stepModel(BOOK), midCallTools(), { store: local, runId: "mid-1" });
    expect(paused).toMatchObject({ status: "awaiting_input", pendingQuestions: status.pendingQuestions });
    const answers = { b1: { city: "Pune" } };
    const live = await resumeAgent("mid-1", stepModel(BOOK), midCallTools(), { store: local, answers });
    expect(durable).toEqual(live);
    expect(untimed(await store.read("mid-1"))).toEqual(untimed(await local.read("mid-1")));
    expect((await store.read("mid-1")).map((event) => event.type)).toContain("tool.asked");
  });
});
