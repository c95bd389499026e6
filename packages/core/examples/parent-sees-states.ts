import assert from "node:assert/strict";
import {
  type AgentResult,
  agentActor,
  asks,
  type Decision,
  final,
  MemoryEventStore,
  resumeAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { assign, createActor, fromPromise, setup, toPromise } from "xstate";

const registry = new ToolRegistry();
registry.register(
  "send_email",
  "Send an email.",
  { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
  ({ to }: { to: string }) => ({ sent: to }),
  { needsApproval: true },
);
const script = [asks(toolCall("e1", "send_email", { to: "ana@example.com" })), final("Sent.")];
const store = new MemoryEventStore();

/**
 * A parent that sees the agent's states as they change (the run's `inspect` option forwards each
 * snapshot of the agent's machine to the parent as an event) and handles `awaiting_approval`: the
 * agent's run ends paused, the parent waits for a person's decision, then resumes the same run
 * from its log with `resumeAgent`.
 */
const parent = setup({
  types: {
    context: {} as { states: string[]; result: AgentResult | null; waiting: string[] },
    events: {} as { type: "agent.state"; value: string } | { type: "decide"; decisions: Record<string, Decision> },
  },
  actors: {
    agent: agentActor,
    resume: fromPromise(({ input }: { input: Record<string, Decision> }) =>
      resumeAgent("mail-1", scriptedModel(script.slice(1)), registry, { store, decisions: input }),
    ),
  },
}).createMachine({
  context: { states: [], result: null, waiting: [] },
  initial: "working",
  on: { "agent.state": { actions: assign({ states: ({ context, event }) => [...context.states, event.value] }) } },
  states: {
    working: {
      invoke: {
        src: "agent",
        input: ({ self }) => ({
          task: "Email Ana.",
          model: scriptedModel(script),
          registry,
          store,
          runId: "mail-1",
          // The agent's own machine reports each snapshot; the parent hears its state by name.
          inspect: (inspection) => {
            if (inspection.type !== "@xstate.snapshot") return;
            const value = (inspection.snapshot as { value?: unknown }).value;
            self.send({ type: "agent.state", value: JSON.stringify(value) });
          },
        }),
        onDone: [
          {
            guard: ({ event }) => event.output.status === "awaiting_approval",
            target: "needsDecision",
            actions: assign({ waiting: ({ event }) => (event.output.pendingApprovals ?? []).map((call) => call.id) }),
          },
          { target: "finished", actions: assign({ result: ({ event }) => event.output }) },
        ],
      },
    },
    // The run is paused and its log kept: nothing happens until a person decides.
    needsDecision: { on: { decide: "resuming" } },
    resuming: {
      invoke: {
        src: "resume",
        input: ({ event }) => (event.type === "decide" ? event.decisions : {}),
        onDone: { target: "finished", actions: assign({ result: ({ event }) => event.output }) },
      },
    },
    finished: { type: "final" },
  },
});

const actor = createActor(parent).start();
await new Promise<void>((resolve) => actor.subscribe((snapshot) => snapshot.matches("needsDecision") && resolve()));
assert.deepEqual(actor.getSnapshot().context.waiting, ["e1"]);
assert.ok(actor.getSnapshot().context.states.includes(JSON.stringify({ executingTools: "awaitingDecision" })));
actor.send({ type: "decide", decisions: { e1: { approved: true } } });
await toPromise(actor);
assert.equal(actor.getSnapshot().context.result?.status, "done");
assert.equal(actor.getSnapshot().context.result?.answer, "Sent.");
