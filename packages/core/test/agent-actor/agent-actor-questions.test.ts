import { describe, expect, it } from "vitest";
import { assign, createActor, type SnapshotFrom, setup } from "xstate";
import {
  type AgentActorLogic,
  type AgentActorSnapshot,
  type AgentParentEvent,
  type AgentResult,
  type AgentTaskInput,
  asks,
  askUserTool,
  createAgentActor,
  final,
  MemoryEventStore,
  type PendingQuestion,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";

// An agent actor pauses on a question of an ask-user tool as it pauses on a call that needs
// approval: the parent hears `agent.inputRequested`, answers with `agent.answer`, and hears
// `agent.answerRefused` for an answer that does not fit the question's shape.

const CITY = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;
const registry = () => new ToolRegistry([askUserTool({ answer: CITY })]);
const script = () => [asks(toolCall("q1", "ask_user", { question: "Which city?" })), final("Lima it is.")];

interface Heard {
  readonly asked: (readonly PendingQuestion[])[];
  readonly refused: string[];
  readonly result: AgentResult | null;
}

/** A parent that invokes `logic` and records the questions it is asked, the refusals, and the result. */
function askingWorkflow(logic: AgentActorLogic<AgentTaskInput>, input: AgentTaskInput) {
  return setup({
    types: { context: {} as Heard, events: {} as AgentParentEvent },
    actors: { agent: logic },
  }).createMachine({
    context: { asked: [], refused: [], result: null },
    initial: "running",
    on: {
      "agent.inputRequested": {
        actions: assign({ asked: ({ context, event }) => [...context.asked, event.questions] }),
      },
      "agent.answerRefused": {
        actions: assign({ refused: ({ context, event }) => [...context.refused, `${event.callId}: ${event.problem}`] }),
      },
    },
    states: {
      running: {
        invoke: {
          id: "agent",
          src: "agent",
          input,
          onDone: { target: "finished", actions: assign({ result: ({ event }) => event.output }) },
        },
      },
      finished: { type: "final" },
    },
  });
}

type Workflow = ReturnType<typeof askingWorkflow>;

/** Resolves once the workflow's snapshot passes `check`. */
function until(actor: ReturnType<typeof createActor<Workflow>>, check: (s: SnapshotFrom<Workflow>) => boolean) {
  return new Promise<void>((resolve) => {
    const look = () => {
      if (!check(actor.getSnapshot())) return;
      subscription.unsubscribe();
      resolve();
    };
    const subscription = actor.subscribe(look);
    look();
  });
}
const agentOf = (actor: ReturnType<typeof createActor<Workflow>>) =>
  actor.getSnapshot().children.agent?.getSnapshot() as AgentActorSnapshot | undefined;
const send = (actor: ReturnType<typeof createActor<Workflow>>, answers: Record<string, unknown>) =>
  actor.getSnapshot().children.agent?.send({ type: "agent.answer", answers });

describe("agentActor: questions through the parent", () => {
  it("asks the parent; an answer that does not fit is refused in one line and the question waits on; one that fits goes on", async () => {
    const model = scriptedModel(script());
    const workflow = askingWorkflow(createAgentActor({ model, registry: registry() }), { task: "Weather?" });
    const actor = createActor(workflow).start();
    await until(actor, (s) => s.context.asked.length === 1);
    expect(actor.getSnapshot().context.asked).toEqual([[{ id: "q1", question: "Which city?", schema: CITY }]]);
    expect(agentOf(actor)?.value).toEqual({ executingTools: "awaitingInput" });
    expect(agentOf(actor)?.context.pendingQuestions).toEqual([{ id: "q1", question: "Which city?", schema: CITY }]);

    send(actor, { q1: { town: "Lima" } });
    await until(actor, (s) => s.context.refused.length === 1);
    expect(actor.getSnapshot().context.refused).toEqual([
      "q1: the answer to 'q1' does not fit: missing required argument 'city'",
    ]);
    expect(agentOf(actor)?.status).toBe("active");
    expect(model.seen).toHaveLength(1);

    send(actor, { q1: { city: "Lima" } });
    await until(actor, (s) => s.status === "done");
    const { result } = actor.getSnapshot().context;
    expect(result).toMatchObject({ status: "done", answer: "Lima it is." });
    expect(result?.messages[3]).toMatchObject({ role: "tool", toolCallId: "q1", content: '{"city":"Lima"}' });
  });

  it("agent.pause leaves the question unanswered: the run ends awaiting_input, listing it", async () => {
    const workflow = askingWorkflow(createAgentActor({ model: scriptedModel(script()), registry: registry() }), {
      task: "Weather?",
    });
    const actor = createActor(workflow).start();
    await until(actor, (s) => s.context.asked.length === 1);
    actor.getSnapshot().children.agent?.send({ type: "agent.pause" });
    await until(actor, (s) => s.status === "done");
    expect(actor.getSnapshot().context.result).toMatchObject({
      status: "awaiting_input",
      pendingQuestions: [{ id: "q1", question: "Which city?" }],
    });
  });

  it("a parent persisted while the question waits and restored from JSON asks again, and the answer finishes the run once", async () => {
    const store = new MemoryEventStore();
    const first = createActor(
      askingWorkflow(createAgentActor({ model: scriptedModel(script()), registry: registry(), store }), {
        task: "Weather?",
        runId: "asks-1",
      }),
    ).start();
    await until(first, (s) => s.context.asked.length === 1);
    const saved = JSON.stringify(first.getPersistedSnapshot());
    first.stop();

    const model = scriptedModel(script().slice(1));
    const later = askingWorkflow(createAgentActor({ model, registry: registry(), store }), { task: "Weather?" });
    const restored = createActor(later, { snapshot: JSON.parse(saved) as SnapshotFrom<Workflow> }).start();
    expect(agentOf(restored)?.value).toEqual({ executingTools: "awaitingInput" });
    await until(restored, (s) => s.context.asked.length === 2);
    expect(restored.getSnapshot().context.asked[1]).toEqual([{ id: "q1", question: "Which city?", schema: CITY }]);
    send(restored, { q1: { city: "Lima" } });
    await until(restored, (s) => s.status === "done");

    expect(restored.getSnapshot().context.result).toMatchObject({
      status: "done",
      answer: "Lima it is.",
      runId: "asks-1",
    });
    expect(model.seen).toHaveLength(1);
    const log = await store.read("asks-1");
    expect(log.filter((event) => event.type === "question.answered")).toMatchObject([{ answer: { city: "Lima" } }]);
    expect(log.filter((event) => event.type === "model.replied")).toHaveLength(2);
  });

  it("an answer sent before the restored run asks again is kept for its question", async () => {
    const store = new MemoryEventStore();
    const first = createActor(
      askingWorkflow(createAgentActor({ model: scriptedModel(script()), registry: registry(), store }), {
        task: "Weather?",
        runId: "asks-2",
      }),
    ).start();
    await until(first, (s) => s.context.asked.length === 1);
    const snapshot = first.getPersistedSnapshot() as SnapshotFrom<Workflow>;
    first.stop();

    const later = askingWorkflow(
      createAgentActor({ model: scriptedModel(script().slice(1)), registry: registry(), store }),
      {
        task: "Weather?",
      },
    );
    const restored = createActor(later, { snapshot }).start();
    // At once, before the run has read its log again.
    send(restored, { q1: { city: "Quito" } });
    await until(restored, (s) => s.status === "done");
    expect(restored.getSnapshot().context.result?.messages[3]).toMatchObject({ content: '{"city":"Quito"}' });
  });
});
