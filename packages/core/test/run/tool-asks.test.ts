import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  final,
  MemoryEventStore,
  readTree,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";

const CITY = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;

/** A tool that asks which city before it answers, and counts its attempts and what ran after the question. */
function bookingRegistry() {
  const seen = { attempts: 0, afterAsk: 0 };
  const registry = new ToolRegistry();
  registry.register("book", "Books a trip.", { type: "object", properties: {} }, async (_args, { ask }) => {
    seen.attempts += 1;
    const answer = (await ask("Which city?", CITY)) as { city: string };
    seen.afterAsk += 1;
    return `booked ${answer.city}`;
  });
  registry.register("send", "Sends.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
  return { registry, seen };
}

describe("a tool that asks a person while it runs", () => {
  it("pauses awaiting_input with the question under the call's id, then makes the call again with the answer", async () => {
    const model = scriptedModel([asks(toolCall("b1", "book")), final("Booked.")]);
    const { registry, seen } = bookingRegistry();
    const store = new MemoryEventStore();
    const paused = await runAgent("Book.", model, registry, { store, runId: "r" });
    expect(paused).toMatchObject({
      status: "awaiting_input",
      pendingQuestions: [{ id: "b1", question: "Which city?", schema: CITY }],
      pendingApprovals: [],
    });
    // The call ended without a tool message: nothing after the question ran.
    expect(paused.messages.filter((m) => m.role === "tool")).toEqual([]);
    expect(seen).toEqual({ attempts: 1, afterAsk: 0 });
    const log = await store.read("r");
    expect(log.map((e) => e.type)).toEqual(["run.started", "model.replied", "tool.started", "tool.asked"]);
    expect(log[3]).toMatchObject({ callId: "b1", question: "Which city?", schema: CITY });
    expect(replayRun(log).snapshot.value).toEqual({ executingTools: "awaitingInput" });

    const result = await resumeAgent("r", model, registry, { store, answers: { b1: { city: "Lima" } } });
    expect(result.status).toBe("done");
    expect(seen).toEqual({ attempts: 2, afterAsk: 1 });
    const tool = result.messages.filter((m) => m.role === "tool");
    expect(tool).toHaveLength(1);
    expect(tool[0]?.content).toMatch(
      /^"booked Lima"\n\(book asked the user a question while it ran, so the call was made again/,
    );
    expect(tool[0]?.content).toContain('"Which city?" answered {"city":"Lima"}');
    const after = await store.read("r");
    expect(after.slice(4).map((e) => e.type)).toEqual([
      "question.answered",
      "tool.started",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
    // Replay is exact: the logged events lead to the same result, asking nobody.
    expect(replayRun(after).result).toMatchObject({ status: "done", answer: "Booked.", messages: result.messages });
  });

  it("refuses in one line an answer that does not fit the shape the tool gave, logging nothing", async () => {
    const model = scriptedModel([asks(toolCall("b1", "book")), final("Booked.")]);
    const { registry } = bookingRegistry();
    const store = new MemoryEventStore();
    await runAgent("Book.", model, registry, { store, runId: "r" });
    const before = (await store.read("r")).length;
    const refused = resumeAgent("r", model, registry, { store, answers: { b1: { town: "Lima" } } });
    await expect(refused).rejects.toThrow(RangeError);
    await expect(refused).rejects.toThrow(/^run 'r': the answer to 'b1' does not fit: .*city/);
    await expect(refused).rejects.not.toThrow(/\n/);
    expect(await store.read("r")).toHaveLength(before);
  });

  it("waits with a decision in one reply, and takes both in one resume", async () => {
    const model = scriptedModel([asks(toolCall("s1", "send"), toolCall("b1", "book")), final("Done.")]);
    const { registry } = bookingRegistry();
    const store = new MemoryEventStore();
    const paused = await runAgent("Go.", model, registry, { store, runId: "r", toolConcurrency: 2 });
    expect(paused).toMatchObject({
      status: "awaiting_approval",
      pendingApprovals: [{ id: "s1" }],
      pendingQuestions: [{ id: "b1", question: "Which city?" }],
    });
    const result = await resumeAgent("r", model, registry, {
      store,
      decisions: { s1: { approved: true } },
      answers: { b1: { city: "Quito" } },
    });
    expect(result.status).toBe("done");
    expect(result.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content])).toEqual([
      ["s1", '"sent"'],
      ["b1", expect.stringMatching(/^"booked Quito"\n/)],
    ]);
  });

  it("asks again when the call made again asks a second question, each answer given in turn", async () => {
    const registry = new ToolRegistry();
    let attempts = 0;
    registry.register("plan", "Plans.", { type: "object", properties: {} }, async (_args, { ask }) => {
      attempts += 1;
      const city = await ask("Which city?");
      const day = await ask("Which day?");
      return `${String(city)} on ${String(day)}`;
    });
    const model = scriptedModel([asks(toolCall("p1", "plan")), final("Planned.")]);
    const store = new MemoryEventStore();
    await runAgent("Plan.", model, registry, { store, runId: "r" });
    const second = await resumeAgent("r", model, registry, { store, answers: { p1: "Lima" } });
    expect(second).toMatchObject({
      status: "awaiting_input",
      pendingQuestions: [{ id: "p1", question: "Which day?" }],
    });
    const result = await resumeAgent("r", model, registry, { store, answers: { p1: "Monday" } });
    expect(attempts).toBe(3);
    expect(result.messages.at(-2)?.content).toMatch(/^"Lima on Monday"\n/);
    expect(replayRun(await store.read("r")).result?.status).toBe("done");
  });

  it("refuses an answer for a call that asks nothing, and a shape that cannot be enforced is the tool's failure", async () => {
    const registry = new ToolRegistry();
    registry.register("odd", "Odd.", { type: "object", properties: {} }, async (_args, { ask }) => {
      await ask("Which?", { type: "object", properties: { a: { type: "nonsense" } } });
      return "never";
    });
    const model = scriptedModel([asks(toolCall("o1", "odd")), final("Ok.")]);
    const result = await runAgent("Go.", model, registry);
    expect(result.status).toBe("done");
    expect(result.messages[3]?.content).toMatch(/^ERROR: odd failed: .*answer shape cannot be enforced/);
  });

  it("a call whose tool is not in a run rejects its ask", async () => {
    const registry = new ToolRegistry();
    registry.register("q", "Asks.", { type: "object", properties: {} }, async (_args, { ask }) => ask("Hello?"));
    expect(await registry.execute("q", {})).toMatch(/^ERROR: q failed: .*nobody can answer the question here/);
  });

  it("in a tree, a child's tool that asks pauses the root, listed by chained id, and the answer goes down to the child", async () => {
    const { registry: childTools, seen } = bookingRegistry();
    const child = scriptedModel([asks(toolCall("b1", "book")), final("Booked in Lima.")]);
    const registry = new ToolRegistry([
      agentTool({ name: "travel", description: "T.", model: child, registry: childTools }),
    ]);
    const parent = scriptedModel([asks(toolCall("t1", "travel", { task: "book a trip" })), final("Done.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Trip.", parent, registry, { store, runId: "p" });
    expect(paused).toMatchObject({
      status: "awaiting_input",
      pendingQuestions: [{ id: "t1/b1", question: "Which city?", schema: CITY }],
    });
    const listed = (await readTree(store, "p")).treeQuestions;
    expect(listed).toEqual(paused.pendingQuestions);
    const result = await resumeAgent("p", parent, registry, { store, answers: { "t1/b1": { city: "Lima" } } });
    expect(result).toMatchObject({ status: "done", answer: "Done." });
    expect(seen).toEqual({ attempts: 2, afterAsk: 1 });
    expect((await store.read("p.t1")).find((e) => e.type === "tool.asked")).toMatchObject({ callId: "b1" });
  });

  it("cancels a run whose tool waits for an answer: the call is closed with an ERROR observation", async () => {
    const model = scriptedModel([asks(toolCall("b1", "book"))]);
    const { registry } = bookingRegistry();
    const store = new MemoryEventStore();
    await runAgent("Book.", model, registry, { store, runId: "r" });
    const controller = new AbortController();
    controller.abort(new Error("closed"));
    const result = await resumeAgent("r", model, registry, { store, signal: controller.signal });
    expect(result.status).toBe("cancelled");
    expect(result.messages[3]).toMatchObject({ toolCallId: "b1", isError: true });
    expect(replayRun(await store.read("r")).result?.status).toBe("cancelled");
  });
});
