import {
  agentTool,
  asks,
  askUserTool,
  final,
  MemoryEventStore,
  type ModelReply,
  replayRun,
  runAgent,
  type ToolCall,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { type ChildTool, childToolOf } from "@agentloop/core/driver";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentWorkflowOptions, agentWorkflow } from "../src/index.js";
import { waitUntil } from "../src/testing/wait-until.js";
import { stepModel } from "./support/in-process.js";
import { type InProcessHarness, openInProcess, untimed } from "./support/in-process-harness.js";

// Agent tools on the real server: the child of an agent tool's call is a workflow of its own,
// with its own log, its share of the tree's one budget, and its calls decided from the parent by
// chained id; compared with runAgent given the same options.

const usage = (tokens: number) => ({ inputTokens: tokens, outputTokens: 10 });
const billed = (reply: ModelReply, tokens: number): ModelReply => ({ ...reply, usage: usage(tokens) });

const CITY = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;

function weatherTools(): ToolRegistry {
  const registry = new ToolRegistry([askUserTool({ answer: CITY })]);
  registry.register("get_weather", "Celsius in a city.", { type: "object" }, () => ({ city: "Pune", celsius: 30 }));
  registry.register("send_email", "Sends an email.", { type: "object" }, () => ({ sent: true }), {
    needsApproval: true,
  });
  return registry;
}

/** A parent whose model asks the `researcher` agent tool once, then answers; the child's script is `child`. */
function tree(child: readonly ModelReply[], options: { tokenBudget?: number; childBudget?: number } = {}) {
  const researcher = agentTool({
    name: "researcher",
    description: "Finds things out.",
    model: stepModel(child),
    registry: weatherTools(),
    ...(options.childBudget === undefined ? {} : { options: { tokenBudget: options.childBudget } }),
  });
  const registry = new ToolRegistry([researcher]);
  const model = stepModel([
    billed(asks(toolCall("r1", "researcher", { task: "How hot is Pune?" })), 100),
    billed(final("Pune is 30 C."), 100),
  ]);
  return {
    model,
    registry,
    ...(options.tokenBudget === undefined ? {} : { tokenBudget: options.tokenBudget }),
  };
}

const PRICES = { sonnet: { input: 3, output: 15 }, haiku: { input: 1, output: 5 } };

/** A tree whose models have names, priced by the parent's `pricing`, under a cost budget. */
function pricedTree(childModel: "haiku" | "opus") {
  const made = tree([billed(asks(toolCall("w1", "get_weather")), 200), billed(final("30 C."), 200)]);
  const child = childToolOf(made.registry, "researcher") as ChildTool;
  Object.assign(child.agent.model, { modelName: childModel });
  return { ...made, model: Object.assign(made.model, { modelName: "sonnet" }), pricing: PRICES, costBudget: 0.05 };
}

const FEATURES = {
  delegating: () => tree([billed(asks(toolCall("w1", "get_weather", { city: "Pune" })), 200), final("30 C.")]),
  approving: () => tree([asks(toolCall("m1", "send_email", { to: "ana" })), final("Mailed.")]),
  policed: () => ({
    ...tree([asks(toolCall("m1", "send_email", { to: "ana" })), final("Mailed.")]),
    // The root's policy sees the child's call by its chained id, as runAgent shows it.
    approve: (call: ToolCall) => ({ approved: call.id === "r1/m1", reason: `seen as ${call.id}` }),
  }),
  pricedTree: () => pricedTree("haiku"),
  unpricedTree: () => pricedTree("opus"),
  asking: () => tree([asks(toolCall("q1", "ask_user", { question: "Which city?" })), final("Asked.")]),
  // The child's first call is billed past its whole share (a provider can always surprise the first
  // call): the child stops there, and what it spent leaves the parent no room for its next call.
  budgeted: () =>
    tree(
      [
        billed(asks(toolCall("w1", "get_weather")), 2900),
        billed(asks(toolCall("w2", "get_weather")), 1500),
        billed(final("Hot."), 1500),
      ],
      { tokenBudget: 3000 },
    ),
} satisfies Record<string, () => Omit<AgentWorkflowOptions, "name" | "store">>;

type Feature = keyof typeof FEATURES;

const store = new MemoryEventStore();
const workflows = Object.entries(FEATURES).map(([name, make]) => agentWorkflow({ name, store, ...make() }));

describe("agent tools on Restate: a child is a workflow of its own", () => {
  let restate: InProcessHarness;

  beforeAll(async () => {
    restate = await openInProcess(workflows);
  }, hangGuard(60_000));

  afterAll(async () => {
    await restate?.close();
  });

  /** Runs `task` with runAgent on fresh models and options; returns its result and the logs of the parent and the child. */
  async function live(feature: Feature, runId: string, task: string) {
    const local = new MemoryEventStore();
    const { model, registry, ...options } = FEATURES[feature]();
    const result = await runAgent(task, model, registry, { ...options, store: local, runId });
    return { result, parent: await local.read(runId), child: await local.read(`${runId}.r1`) };
  }

  it("a parent with an agent tool ends with runAgent's result, and the same logs (the parent's and the child's)", async () => {
    const run = restate.run("delegating", "tree-1");
    await run.workflowSubmit({ task: "Weather?" });
    const result = await run.workflowAttach();
    const expected = await live("delegating", "tree-1", "Weather?");
    expect(result).toMatchObject({ status: "done", answer: "Pune is 30 C." });
    expect(result).toEqual(expected.result);
    const parent = await store.read("tree-1");
    const child = await store.read("tree-1.r1");
    expect(untimed(parent)).toEqual(untimed(expected.parent));
    expect(untimed(child)).toEqual(untimed(expected.child));
    expect(parent.find((event) => event.type === "tool.started")).toMatchObject({ childRunId: "tree-1.r1" });
    expect(child[0]).toMatchObject({ type: "run.started", parent: { runId: "tree-1", callId: "r1" } });
    expect(child.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "done" } });
    // The child is a workflow of its own: its log is there too, and replays to its result.
    const childRun = restate.run("delegating", "tree-1.r1");
    expect(await childRun.status()).toMatchObject({ phase: "finished", result: { answer: "30 C." } });
    const { runId: _runId, ...rest } = result;
    expect(replayRun(parent).result).toEqual(rest);
  });

  it("a child's call that needs approval is listed by the parent's status by chained id, and decided through the parent", async () => {
    const run = restate.run("approving", "tree-2");
    await run.workflowSubmit({ task: "Mail Ana." });
    const waiting = await waitUntil(
      async () => {
        const status = await run.status();
        return status.phase === "awaiting_approval" ? status : null;
      },
      { what: "the parent to list its child's call" },
    );
    expect(waiting.awaitingDecision).toMatchObject([{ id: "r1/m1", name: "send_email" }]);
    expect(waiting.runningTools).toMatchObject([{ id: "r1", name: "researcher" }]);
    await expect(run.decide({ callId: "r1/zz", approved: true })).rejects.toThrow(/'zz' does not wait for a decision/);
    await run.decide({ callId: "r1/m1", approved: true, reason: "fine" });
    const result = await run.workflowAttach();
    expect(result).toMatchObject({ status: "done", answer: "Pune is 30 C." });
    const child = await store.read("tree-2.r1");
    expect(child.filter((event) => event.type === "approval.decided")).toMatchObject([
      { callId: "m1", approved: true, reason: "fine" },
    ]);
    const observation = result.messages.find((message) => message.role === "tool" && message.toolCallId === "r1");
    expect(observation?.content).toBe("Mailed.");
    expect((await run.status()).awaitingDecision).toEqual([]);
    // Once the tree has ended, no call of it waits.
    await expect(run.decide({ callId: "r1/m1", approved: false })).rejects.toThrow(/'r1\/m1' does not wait/);
  });

  it("the root's approval policy is asked about a child's call by its chained id, as runAgent asks it", async () => {
    const run = restate.run("policed", "tree-6");
    await run.workflowSubmit({ task: "Mail Ana." });
    const result = await run.workflowAttach();
    const expected = await live("policed", "tree-6", "Mail Ana.");
    expect(result).toEqual(expected.result);
    const child = await store.read("tree-6.r1");
    expect(untimed(child)).toEqual(untimed(expected.child));
    expect(child.find((event) => event.type === "approval.decided")).toMatchObject({
      callId: "m1",
      approved: true,
      reason: "seen as r1/m1",
    });
  });

  it("the tree's one cost budget: the child's share and cost, counted in the parent's, as runAgent has them", async () => {
    const run = restate.run("pricedTree", "tree-7");
    await run.workflowSubmit({ task: "Weather?" });
    const result = await run.workflowAttach();
    const expected = await live("pricedTree", "tree-7", "Weather?");
    expect(result).toMatchObject({ status: "done" });
    expect(result).toEqual(expected.result);
    const child = await store.read("tree-7.r1");
    expect(untimed(child)).toEqual(untimed(expected.child));
    expect(untimed(await store.read("tree-7"))).toEqual(untimed(expected.parent));
    const share = (child[0] as { settings: { costBudget?: number } }).settings.costBudget;
    expect(share).toBeLessThan(0.05);
    const finished = (await store.read("tree-7")).find((event) => event.type === "tool.finished");
    expect(finished).toMatchObject({ childRunId: "tree-7.r1", cost: expect.any(Number) });
    expect(result.cost).toBeGreaterThan((finished as { cost: number }).cost);
  });

  it("a cost budget with an agent tool whose model has no price is refused before the run, as runAgent refuses it", async () => {
    const run = restate.run("unpricedTree", "tree-8");
    await run.workflowSubmit({ task: "Weather?" });
    const refused = await run.workflowAttach().catch((error: unknown) => error as Error);
    const { model, registry, ...options } = FEATURES.unpricedTree();
    const local = await runAgent("Weather?", model, registry, options).catch((error: unknown) => error as Error);
    expect(local).toBeInstanceOf(RangeError);
    // The ingress's error body is JSON: the message is there with its quotes escaped.
    expect((refused as Error).message).toMatch(/^Request failed: 400/);
    expect((refused as Error).message).toContain(JSON.stringify((local as Error).message).slice(1, -1));
    expect(await store.read("tree-8")).toEqual([]);
  });

  it("a child's question is answered through the parent by chained id, checked against the child's tool", async () => {
    const run = restate.run("asking", "tree-4");
    await run.workflowSubmit({ task: "Ask me." });
    const waiting = await waitUntil(
      async () => {
        const status = await run.status();
        return status.phase === "awaiting_input" ? status : null;
      },
      { what: "the parent to list its child's question" },
    );
    expect(waiting.pendingQuestions).toMatchObject([{ id: "r1/q1", question: "Which city?" }]);
    expect(waiting.awaitingDecision).toEqual([]);
    await expect(run.answer({ callId: "r1/q1", answer: { town: "Pune" } })).rejects.toThrow(/does not fit/);
    await run.answer({ callId: "r1/q1", answer: { city: "Pune" } });
    const result = await run.workflowAttach();
    expect(result).toMatchObject({ status: "done", answer: "Pune is 30 C." });
    const child = await store.read("tree-4.r1");
    expect(child.filter((event) => event.type === "question.answered")).toMatchObject([{ callId: "q1" }]);
  });

  it("cancelling the parent cancels the child it runs", async () => {
    const run = restate.run("approving", "tree-5");
    await run.workflowSubmit({ task: "Mail Ana." });
    await waitUntil(async () => (await run.status()).phase === "awaiting_approval", {
      what: "the child's call to wait",
    });
    await run.cancel({ reason: "not now" });
    const result = await run.workflowAttach();
    expect(result).toMatchObject({ status: "cancelled" });
    const child = restate.run("approving", "tree-5.r1");
    const ended = await child.workflowAttach();
    expect(ended).toMatchObject({ status: "cancelled" });
    const childLog = await store.read("tree-5.r1");
    expect(childLog.find((event) => event.type === "run.cancelled")).toMatchObject({ reason: "not now" });
  });

  it("the tree's one budget: the child gets the share runAgent gives it, and stops at it", async () => {
    const run = restate.run("budgeted", "tree-3");
    await run.workflowSubmit({ task: "Weather?" });
    const result = await run.workflowAttach();
    const expected = await live("budgeted", "tree-3", "Weather?");
    expect(result).toEqual(expected.result);
    const child = await store.read("tree-3.r1");
    expect(untimed(child)).toEqual(untimed(expected.child));
    expect(untimed(await store.read("tree-3"))).toEqual(untimed(expected.parent));
    expect(child.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "token_budget" } });
    const share = (child[0] as { settings: { tokenBudget: number } }).settings.tokenBudget;
    expect(share).toBeLessThan(3000);
    const observation = result.messages.find((message) => message.role === "tool" && message.toolCallId === "r1");
    expect(observation?.content).toMatch(/^ERROR: researcher ended with status token_budget/);
    // What the child spent counts in the parent's budget: the parent stops before its next call too.
    expect(result).toMatchObject({ status: "token_budget", steps: 1 });
  });
});
