import assert from "node:assert/strict";
import {
  type AgentParentEvent,
  asks,
  createAgentActor,
  final,
  MemoryEventStore,
  scriptedModel,
  type ToolCall,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { assign, createActor, type SnapshotFrom, sendTo, setup } from "xstate";

const sent: string[] = [];
const registry = new ToolRegistry();
registry.register(
  "send_email",
  "Send an email to a customer.",
  { type: "object", properties: { to: { type: "string" }, body: { type: "string" } }, required: ["to", "body"] },
  ({ to }: { to: string }) => {
    sent.push(to);
    return { sent: true };
  },
  { needsApproval: true },
);
const model = scriptedModel([
  asks(toolCall("m1", "send_email", { to: "ana@example.com", body: "Your order 42 has shipped." })),
  final("Emailed Ana that order 42 shipped."),
]);
const store = new MemoryEventStore();

type Review = { type: "review"; approved: boolean; reason?: string };

/**
 * An order process: it asks an agent to draft and send the shipping email, routes the agent's
 * `send_email` to a person (the `reviewing` state, where the workflow may wait for days), and
 * goes on with the agent's result. The model, the tools and the store are given to
 * `createAgentActor`, so that a workflow restored from a saved snapshot has them again.
 */
const orderProcess = setup({
  types: {
    context: {} as { order: number; proposed: readonly ToolCall[]; states: string[]; summary: string | null },
    input: {} as { order: number },
    events: {} as AgentParentEvent | Review,
  },
  actors: { agent: createAgentActor({ model, registry, store }) },
}).createMachine({
  context: ({ input }) => ({ order: input.order, proposed: [], states: [], summary: null }),
  initial: "emailing",
  states: {
    emailing: {
      invoke: {
        id: "agent",
        src: "agent",
        input: ({ context }) => ({
          task: `Email the customer that order ${context.order} shipped.`,
          runId: `order-${context.order}`,
        }),
        onDone: [
          {
            guard: ({ event }) => event.output.status === "done",
            target: "shipped",
            actions: assign({ summary: ({ event }) => event.output.answer }),
          },
          { target: "needsAttention" },
        ],
        onError: "needsAttention",
      },
      on: {
        // The agent's state, as it changes: here only kept, a real process might show it.
        "agent.state": {
          actions: assign({ states: ({ context, event }) => [...context.states, JSON.stringify(event.value)] }),
        },
      },
      initial: "working",
      states: {
        working: {
          on: {
            "agent.approvalRequested": {
              target: "reviewing",
              actions: assign({ proposed: ({ event }) => event.calls }),
            },
          },
        },
        // A person reads the proposed email and decides; the decision goes to the agent, for each call.
        reviewing: {
          on: {
            review: {
              target: "working",
              actions: sendTo("agent", ({ context, event }) => {
                const { approved, reason } = event;
                const decision = reason === undefined ? { approved } : { approved, reason };
                return {
                  type: "agent.decide" as const,
                  decisions: Object.fromEntries(context.proposed.map((call) => [call.id, decision])),
                };
              }),
            },
          },
        },
      },
    },
    shipped: { type: "final" },
    needsAttention: { type: "final" },
  },
});

// The workflow is saved after every step, as a durable process would keep it in its database.
let saved = "";
const keep = (actor: ReturnType<typeof createActor<typeof orderProcess>>) =>
  actor.subscribe(() => {
    saved = JSON.stringify(actor.getPersistedSnapshot());
  });

const first = createActor(orderProcess, { input: { order: 42 } });
keep(first);
first.start();
await new Promise<void>((resolve) => first.subscribe((s) => s.matches({ emailing: "reviewing" }) && resolve()));
assert.deepEqual(
  first.getSnapshot().context.proposed.map((call) => call.args),
  [{ to: "ana@example.com", body: "Your order 42 has shipped." }],
);
// The agent, as the parent sees it: its machine waits for the decision on m1.
const agent = first.getSnapshot().children.agent?.getSnapshot();
assert.deepEqual(agent?.value, { executingTools: "awaitingDecision" });
assert.deepEqual(
  agent?.context.pendingApprovals.map((call) => call.id),
  ["m1"],
);

// The process stops while the email waits for its review (a deploy, a crash, a day passing)...
first.stop();

// ...and the workflow comes back from what was saved: the agent's run goes on from its log.
const snapshot = JSON.parse(saved) as SnapshotFrom<typeof orderProcess>;
const restored = createActor(orderProcess, { snapshot, input: { order: 42 } });
keep(restored);
restored.start();
assert.ok(restored.getSnapshot().matches({ emailing: "reviewing" }));
restored.send({ type: "review", approved: true });
await new Promise<void>((resolve) => restored.subscribe((s) => s.status === "done" && resolve()));

assert.ok(restored.getSnapshot().matches("shipped"));
assert.equal(restored.getSnapshot().context.summary, "Emailed Ana that order 42 shipped.");
assert.deepEqual(sent, ["ana@example.com"]);
assert.ok(restored.getSnapshot().context.states.includes('"done"'));
