import { type Actor, assign, createActor, setup } from "xstate";
import type { AgentActorLogic, AgentParentEvent, AgentResult, AgentTaskInput, ToolCall } from "../../src/index.js";

export { makeMailRegistry } from "../../src/testing.js";

/** What the test workflow keeps: every state the agent showed, every approval request, and how the child ended. */
export interface WorkflowContext {
  readonly states: string[];
  readonly requests: string[][];
  readonly result: AgentResult | null;
  readonly error: unknown;
}

/**
 * A parent that invokes `logic` with `input` in `running` and records what it hears: `agent.state`
 * (the value, as JSON) and `agent.approvalRequested` (the call ids). `leave` leaves the state.
 */
export function testWorkflow(logic: AgentActorLogic<AgentTaskInput>, input: AgentTaskInput) {
  return setup({
    types: {
      context: {} as WorkflowContext,
      events: {} as AgentParentEvent | { type: "leave" },
    },
    actors: { agent: logic },
  }).createMachine({
    context: { states: [], requests: [], result: null, error: null },
    initial: "running",
    on: {
      "agent.state": {
        actions: assign({ states: ({ context, event }) => [...context.states, JSON.stringify(event.value)] }),
      },
      "agent.approvalRequested": {
        actions: assign({
          requests: ({ context, event }) => [...context.requests, event.calls.map((call: ToolCall) => call.id)],
        }),
      },
    },
    states: {
      running: {
        invoke: {
          id: "agent",
          src: "agent",
          input,
          onDone: { target: "finished", actions: assign({ result: ({ event }) => event.output }) },
          onError: { target: "failed", actions: assign({ error: ({ event }) => event.error }) },
        },
        on: { leave: "left" },
      },
      finished: { type: "final" },
      failed: { type: "final" },
      left: { type: "final" },
    },
  });
}

/** Resolves once the actor's snapshot passes `check`. */
export function until<TActor extends Actor<ReturnType<typeof testWorkflow>>>(
  actor: TActor,
  check: (snapshot: ReturnType<TActor["getSnapshot"]>) => boolean,
): Promise<void> {
  return new Promise((resolve) => {
    const look = () => {
      if (check(actor.getSnapshot() as ReturnType<TActor["getSnapshot"]>)) {
        subscription.unsubscribe();
        resolve();
      }
    };
    const subscription = actor.subscribe(look);
    look();
  });
}

/** Starts the workflow. */
export function startWorkflow(logic: AgentActorLogic<AgentTaskInput>, input: AgentTaskInput) {
  return createActor(testWorkflow(logic, input)).start();
}
