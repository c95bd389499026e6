import { describe, expect, it, vi } from "vitest";
import { assign, createActor, type SnapshotFrom, setup } from "xstate";
import { hangGuard } from "../../../../hang-guard.js";
import {
  type AgentActorSnapshot,
  type AgentResult,
  type AgentTaskInput,
  agentActor,
  asks,
  createAgentActor,
  final,
  MemoryEventStore,
  type Model,
  ModelError,
  type ModelReply,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { makeMailRegistry, startWorkflow, testWorkflow, until } from "./agent-workflow.js";

const email = (id: string, to: string) => toolCall(id, "send_email", { to });
const agentOf = (actor: ReturnType<typeof startWorkflow>) =>
  actor.getSnapshot().children.agent?.getSnapshot() as AgentActorSnapshot | undefined;
/** A model whose call never settles until the run's signal aborts; `seen` holds that signal. */
function hangingModel(): Model & { seen: AbortSignal[] } {
  const seen: AbortSignal[] = [];
  const model: Model = (_messages, _tools, { signal }) => {
    seen.push(signal);
    return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
  };
  return Object.assign(model, { seen });
}

describe("agentActor: the parent sees the agent", () => {
  it("in the child's snapshot (value, steps, tokens, waiting calls) and as agent.state on each change", async () => {
    const { registry } = makeMailRegistry();
    const model = scriptedModel([asks(email("e1", "ana@example.com")), final("Sent.")]);
    const actor = startWorkflow(createAgentActor({ model, registry }), { task: "Email Ana." });
    await until(actor, (s) => s.context.requests.length === 1);
    const agent = agentOf(actor);
    expect(agent?.value).toEqual({ executingTools: "awaitingDecision" });
    expect(agent?.context).toMatchObject({ runId: null, steps: 1 });
    expect(agent?.context.tokens).toBeGreaterThan(0);
    expect(agent?.context.pendingApprovals.map((call) => call.id)).toEqual(["e1"]);
    agent && actor.getSnapshot().children.agent?.send({ type: "agent.decide", decisions: { e1: { approved: true } } });
    await until(actor, (s) => s.status === "done");
    expect(actor.getSnapshot().context.states).toEqual([
      '"callingModel"',
      '{"executingTools":"awaitingDecision"}',
      '{"executingTools":"runningTools"}',
      '"callingModel"',
      '"done"',
    ]);
  });
});

describe("agentActor: the input's own listeners", () => {
  it("still hear the run: inspect gets the machine's snapshots, onEvent the run's events", async () => {
    const { registry } = makeMailRegistry();
    const snapshots: unknown[] = [];
    const heard: string[] = [];
    const actor = startWorkflow(createAgentActor({ model: scriptedModel([final("Hi.")]), registry }), {
      task: "Say hi.",
      inspect: (event) => {
        if (event.type === "@xstate.snapshot" && "value" in event.snapshot) snapshots.push(event.snapshot.value);
      },
      onEvent: (event) => heard.push(event.type === "logged" ? event.event.type : event.type),
    });
    await until(actor, (s) => s.status === "done");
    expect(snapshots).toEqual(expect.arrayContaining(["callingModel", "done"]));
    expect(heard).toEqual(["run.started", "step-started", "text-delta", "model.replied", "run.finished", "finished"]);
  });
});

describe("agentActor: approval through the parent", () => {
  it("announces a reply's calls together, and each decision goes to its own call", async () => {
    const { registry, sent } = makeMailRegistry();
    const model = scriptedModel([asks(email("e1", "ana@example.com"), email("e2", "all@example.com")), final("Ok.")]);
    const actor = startWorkflow(createAgentActor({ model, registry }), { task: "Email the team." });
    await until(actor, (s) => s.context.requests.length === 1);
    expect(actor.getSnapshot().context.requests).toEqual([["e1", "e2"]]);
    actor.getSnapshot().children.agent?.send({
      type: "agent.decide",
      decisions: { e1: { approved: true }, e2: { approved: false, reason: "too many recipients" } },
    });
    await until(actor, (s) => s.status === "done");
    expect(actor.getSnapshot().value).toBe("finished");
    expect(sent).toEqual(["ana@example.com"]);
    expect(JSON.stringify(model.seen[1]?.at(-1))).toContain("too many recipients");
  });

  it("lets the input's own approve decide first; only what it leaves undecided goes to the parent", async () => {
    const { registry, sent } = makeMailRegistry();
    const model = scriptedModel([asks(email("e1", "ana@example.com"), email("e2", "all@example.com")), final("Ok.")]);
    const approve = (call: { id: string }) => (call.id === "e1" ? { approved: true } : undefined);
    const actor = startWorkflow(createAgentActor({ model, registry }), { task: "Email the team.", approve });
    await until(actor, (s) => s.context.requests.length === 1);
    expect(actor.getSnapshot().context.requests).toEqual([["e2"]]);
    actor.getSnapshot().children.agent?.send({ type: "agent.decide", decisions: { e2: { approved: true } } });
    await until(actor, (s) => s.status === "done");
    expect(sent.sort()).toEqual(["all@example.com", "ana@example.com"]);
  });
});

/** A reply that ends each way a run can end, with what the input needs for it, and what the parent sends. */
const endings: [string, ModelReply[], Partial<AgentTaskInput>, "pause" | "cancel" | null][] = [
  ["done", [final("Hi.")], {}, null],
  ["step_limit", [asks(email("e1", "a@x.org"))], { maxSteps: 1, approve: () => ({ approved: true }) }, null],
  [
    "repeated_call",
    [asks(email("e1", "a@x.org")), asks(email("e2", "a@x.org"))],
    { onRepeatedCall: "stop", repeatLimit: 2, approve: () => ({ approved: true }) },
    null,
  ],
  ["token_budget", [final("Hi.")], { tokenBudget: 5 }, null],
  ["refused", [{ content: "No.", toolCalls: [], finishReason: "refusal" }], {}, null],
  ["awaiting_approval", [asks(email("e1", "a@x.org"))], {}, "pause"],
  ["cancelled", [asks(email("e1", "a@x.org"))], {}, "cancel"],
];

describe("agentActor: every end reaches the parent as it expects", () => {
  for (const [status, replies, options, send] of endings) {
    it(`${status} is the parent's onDone, with the AgentResult as data`, async () => {
      const { registry } = makeMailRegistry();
      const logic = createAgentActor({ model: scriptedModel(replies), registry });
      const actor = startWorkflow(logic, { task: "Email.", ...options });
      if (send === "pause") await until(actor, (s) => s.context.requests.length === 1);
      if (send !== null) actor.getSnapshot().children.agent?.send({ type: `agent.${send}` });
      await until(actor, (s) => s.status === "done");
      expect(actor.getSnapshot().value).toBe("finished");
      expect(actor.getSnapshot().context.result?.status).toBe(status);
      if (status === "awaiting_approval") {
        expect(actor.getSnapshot().context.result?.pendingApprovals?.map((call) => call.id)).toEqual(["e1"]);
      }
    });
  }

  it("a model failure is the parent's onError, with the ModelError", async () => {
    const { registry } = makeMailRegistry();
    const model: Model = () => {
      throw new Error("API down");
    };
    const actor = startWorkflow(createAgentActor({ model, registry }), { task: "Email." });
    await until(actor, (s) => s.status === "done");
    expect(actor.getSnapshot().value).toBe("failed");
    expect(actor.getSnapshot().context.error).toBeInstanceOf(ModelError);
    expect(String(actor.getSnapshot().context.error)).toMatch(/model call 1 failed: Error: API down/);
  });

  it("leaving the invoking state cancels the run: the model's signal aborts and the log says cancelled", async () => {
    const { registry } = makeMailRegistry();
    const model = hangingModel();
    const store = new MemoryEventStore();
    const actor = startWorkflow(createAgentActor({ model, registry, store }), { task: "Email.", runId: "r1" });
    await vi.waitFor(() => expect(model.seen).toHaveLength(1), { timeout: hangGuard(45_000) });
    actor.send({ type: "leave" });
    expect(model.seen[0]?.aborted).toBe(true);
    await expect
      .poll(async () => (await store.list())[0]?.outcome?.status, { timeout: hangGuard(45_000) })
      .toBe("cancelled");
  });

  it("stopping the whole workflow leaves the run's log where it stands, for a restore to continue", async () => {
    const { registry } = makeMailRegistry();
    const model = hangingModel();
    const store = new MemoryEventStore();
    const actor = startWorkflow(createAgentActor({ model, registry, store }), { task: "Email.", runId: "r1" });
    await vi.waitFor(() => expect(model.seen).toHaveLength(1), { timeout: hangGuard(45_000) });
    actor.stop();
    expect(model.seen[0]?.aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await store.read("r1")).map((event) => event.type)).toEqual(["run.started"]);
  });
});

describe("agentActor: a workflow restored from its persisted snapshot", () => {
  it("with agentActor's input as it was (store and run id), continues the run while its tool runs: no 'already exists'", async () => {
    const store = new MemoryEventStore();
    const runs: string[] = [];
    let release = () => {};
    const registry = new ToolRegistry();
    registry.register("book", "Book the courier.", { type: "object", properties: {} }, async () => {
      runs.push("book");
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { booked: true };
    });
    registry.register("label", "Print the label.", { type: "object", properties: {} }, () => ({ printed: true }), {
      idempotent: true,
    });
    const model = scriptedModel([asks(toolCall("b1", "label")), asks(toolCall("b2", "book")), final("Booked.")]);
    const workflow = setup({
      types: { context: {} as { result: AgentResult | null; error: unknown } },
      actors: { agent: agentActor },
    }).createMachine({
      context: { result: null, error: null },
      initial: "running",
      states: {
        running: {
          invoke: {
            src: "agent",
            input: { task: "Ship it.", model, registry, store, runId: "ship-1" },
            onDone: { target: "finished", actions: assign({ result: ({ event }) => event.output }) },
            onError: { target: "failed", actions: assign({ error: ({ event }) => event.error }) },
          },
        },
        finished: { type: "final" },
        failed: { type: "final" },
      },
    });
    const first = createActor(workflow).start();
    await expect.poll(() => runs.length, { timeout: hangGuard(45_000) }).toBe(1);
    const snapshot = first.getPersistedSnapshot();
    first.stop();
    release();

    const restored = createActor(workflow, { snapshot }).start();
    await new Promise<void>((resolve) => restored.subscribe((s) => s.status === "done" && resolve()));
    expect(restored.getSnapshot().context.error).toBeNull();
    expect(restored.getSnapshot().context.result).toMatchObject({ status: "done", answer: "Booked.", runId: "ship-1" });
    // The booking was cut off: it is not run again, and the model is told its result was lost.
    expect(runs).toEqual(["book"]);
    const observation = restored.getSnapshot().context.result?.messages.at(-2);
    expect(observation).toMatchObject({ role: "tool", toolCallId: "b2" });
    expect(observation?.role === "tool" && observation.content).toMatch(/^ERROR: the result of book was lost/);
  });

  it("continues the run that waits for a decision: the calls are announced again, and the tool runs once", async () => {
    const { registry, sent } = makeMailRegistry();
    const store = new MemoryEventStore();
    const script = [asks(email("e1", "ana@example.com")), final("Sent.")];
    const logic = createAgentActor({ model: scriptedModel(script), registry, store });
    const workflow = testWorkflow(logic, { task: "Email Ana." });
    const first = createActor(workflow).start();
    await until(first, (s) => s.context.requests.length === 1);
    const saved = JSON.stringify(first.getPersistedSnapshot());
    first.stop();

    const later = createAgentActor({ model: scriptedModel(script.slice(1)), registry, store });
    const snapshot = JSON.parse(saved) as SnapshotFrom<typeof workflow>;
    const restored = createActor(testWorkflow(later, { task: "Email Ana." }), { snapshot }).start();
    expect(agentOf(restored)?.value).toEqual({ executingTools: "awaitingDecision" });
    await until(restored, (s) => s.context.requests.length === 2);
    restored.getSnapshot().children.agent?.send({ type: "agent.decide", decisions: { e1: { approved: true } } });
    await until(restored, (s) => s.status === "done");
    expect(restored.getSnapshot().context.result).toMatchObject({
      status: "done",
      answer: "Sent.",
      runId: expect.any(String),
    });
    expect(sent).toEqual(["ana@example.com"]);
  });

  it("invoked again for a paused run, announces its calls again and goes on from the log", async () => {
    const { registry, sent } = makeMailRegistry();
    const store = new MemoryEventStore();
    const model = scriptedModel([asks(email("e1", "ana@example.com")), final("Sent.")]);
    const logic = createAgentActor({ model, registry, store });
    const first = startWorkflow(logic, { task: "Email Ana.", runId: "mail-1" });
    await until(first, (s) => s.context.requests.length === 1);
    first.getSnapshot().children.agent?.send({ type: "agent.pause" });
    await until(first, (s) => s.status === "done");
    expect(first.getSnapshot().context.result?.status).toBe("awaiting_approval");

    const again = startWorkflow(logic, { task: "Email Ana.", runId: "mail-1" });
    await until(again, (s) => s.context.requests.length === 1);
    expect(again.getSnapshot().context.requests).toEqual([["e1"]]);
    again.getSnapshot().children.agent?.send({ type: "agent.decide", decisions: { e1: { approved: true } } });
    await until(again, (s) => s.status === "done");
    expect(again.getSnapshot().context.result).toMatchObject({ status: "done", answer: "Sent.", runId: "mail-1" });
    expect(sent).toEqual(["ana@example.com"]);
    expect(model.seen).toHaveLength(2);
  });

  it("without its model and registry given to createAgentActor, is the parent's onError saying where to give them", async () => {
    const { registry } = makeMailRegistry();
    const store = new MemoryEventStore();
    const model = hangingModel();
    const workflow = testWorkflow(createAgentActor({ store }), { task: "Email.", model, registry });
    const first = createActor(workflow).start();
    await vi.waitFor(() => expect(model.seen).toHaveLength(1), { timeout: hangGuard(45_000) });
    const snapshot = JSON.parse(JSON.stringify(first.getPersistedSnapshot())) as SnapshotFrom<typeof workflow>;
    first.stop();
    const restored = createActor(workflow, { snapshot }).start();
    await until(restored, (s) => s.status === "done");
    expect(restored.getSnapshot().value).toBe("failed");
    expect(String(restored.getSnapshot().context.error)).toMatch(
      /^TypeError: agentActor was restored from a persisted snapshot without a model and a registry: give them .* to createAgentActor/,
    );
  });
});
