import { assertEvent, assign, emit, not, type SnapshotFrom, setup } from "xstate";
import { type AgentContext, type AgentMachineInput, initialContext, resultOf } from "./agent-context.js";
import {
  answerCall,
  appendReply,
  awaitsDecision,
  closePendingCalls,
  deniedObservation,
  isDenied,
  isOverBudget,
  isRepeatedCall,
  recordDecision,
  repeatedCallObservation,
} from "./agent-decisions.js";
import type { EffectEvent, EffectRequest } from "./run-effects.js";
import type { AgentResult, AgentStatus, ToolCall } from "./types.js";

/** The events `agentMachine` accepts: the model's reply, each call's observation, decisions, cancellation. */
export type AgentEvent = EffectEvent;

/**
 * The agent loop as a statechart. `budgetCheck` decides, before every model call, whether the step
 * limit or the token budget ends the run; `callingModel` waits for `model.replied`; a reply without
 * tool calls is the answer (`done`), otherwise `executingTools` answers its calls one at a time, in
 * call order: a call repeated `repeatLimit` times in a row is refused (or stops the run in
 * `repeatedCall`), a call that needs approval waits in `awaitingApproval` for `approval.decided`,
 * the rest run in `runningTool`; the last result goes back to `budgetCheck`. `run.cancelled` ends
 * the run from any state in `cancelled`.
 *
 * The machine performs nothing itself. Every guard and assign is a pure function of context and
 * event; what it needs done it emits as a request (`callModel`, `runTool`, `requestDecision`), and
 * whoever drives it answers with events (`runAgent` does, through `driveEffects`). So the same
 * events folded through `transition()` rebuild a run, and a run has no actor but its own.
 */
export const agentMachine = setup({
  types: {
    input: {} as AgentMachineInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
    emitted: {} as EffectRequest,
    output: {} as AgentResult,
  },
  guards: {
    isStepLimitReached: ({ context }) => context.steps >= context.maxSteps,
    isOverBudget: ({ context }) => isOverBudget(context),
    hasToolCalls: ({ event }) => {
      assertEvent(event, "model.replied");
      return event.reply.toolCalls.length > 0;
    },
    allCallsAnswered: ({ context }) => context.pendingCalls.length === 0,
    isRepeatedCall: ({ context }) => isRepeatedCall(context),
    isDenied: ({ context }) => isDenied(context),
    awaitsDecision: ({ context }) => awaitsDecision(context),
    isNextResult: ({ context, event }) => {
      assertEvent(event, "tool.finished");
      return context.pendingCalls[0]?.id === event.callId;
    },
    isLastResult: ({ context, event }) => {
      assertEvent(event, "tool.finished");
      return context.pendingCalls.length === 1 && context.pendingCalls[0]?.id === event.callId;
    },
    stopsOnRepeatedCall: ({ context }) => context.onRepeatedCall === "stop" && isRepeatedCall(context),
  },
  actions: {
    requestModelReply: emit(({ context }) => modelRequest(context)),
    appendReply: assign(({ context, event }) => {
      assertEvent(event, "model.replied");
      return appendReply(context, event.reply);
    }),
    requestDecision: emit(({ context }) => decisionRequest(context)),
    recordDecision: assign(({ context, event }) => {
      assertEvent(event, "approval.decided");
      return recordDecision(context, event);
    }),
    refuseRepeatedCall: assign(({ context }) => answerCall(context, repeatedCallObservation(context))),
    refuseDeniedCall: assign(({ context }) => answerCall(context, deniedObservation(context))),
    requestToolRun: emit(({ context }) => toolRequest(context)),
    appendToolResult: assign(({ context, event }) => {
      assertEvent(event, "tool.finished");
      return answerCall(context, event.content);
    }),
    closePendingCalls: assign(({ context }, params: { why: string }) => closePendingCalls(context, params.why)),
    finish: assign((_, params: { status: AgentStatus }) => ({ status: params.status })),
  },
}).createMachine({
  id: "agent",
  context: ({ input }) => initialContext(input),
  on: { "run.cancelled": { target: ".cancelled" } },
  initial: "budgetCheck",
  states: {
    budgetCheck: {
      always: [
        { guard: "isStepLimitReached", target: "stepLimit" },
        { guard: "isOverBudget", target: "tokenBudget" },
        { target: "callingModel" },
      ],
    },
    callingModel: {
      entry: "requestModelReply",
      on: {
        "model.replied": [
          { guard: "hasToolCalls", target: "executingTools", actions: "appendReply" },
          { target: "done", actions: "appendReply" },
        ],
      },
    },
    executingTools: {
      initial: "nextCall",
      on: { "approval.decided": { actions: "recordDecision" } },
      states: {
        nextCall: {
          always: [
            { guard: "allCallsAnswered", target: "#agent.budgetCheck" },
            { guard: "stopsOnRepeatedCall", target: "#agent.repeatedCall" },
            { guard: "isRepeatedCall", actions: "refuseRepeatedCall" },
            { guard: "isDenied", actions: "refuseDeniedCall" },
            { guard: "awaitsDecision", target: "awaitingApproval" },
            { target: "runningTool" },
          ],
        },
        awaitingApproval: {
          entry: "requestDecision",
          always: { guard: not("awaitsDecision"), target: "nextCall" },
        },
        runningTool: {
          entry: "requestToolRun",
          on: {
            "tool.finished": [
              { guard: "isLastResult", target: "#agent.budgetCheck", actions: "appendToolResult" },
              { guard: "isNextResult", target: "nextCall", actions: "appendToolResult" },
            ],
          },
        },
      },
    },
    done: { type: "final", entry: { type: "finish", params: { status: "done" } } },
    stepLimit: { type: "final", entry: { type: "finish", params: { status: "step_limit" } } },
    tokenBudget: { type: "final", entry: { type: "finish", params: { status: "token_budget" } } },
    repeatedCall: {
      type: "final",
      entry: [
        { type: "closePendingCalls", params: { why: "the run stopped because a call was repeated" } },
        { type: "finish", params: { status: "repeated_call" } },
      ],
    },
    cancelled: {
      type: "final",
      entry: [
        { type: "closePendingCalls", params: { why: "the run was cancelled" } },
        { type: "finish", params: { status: "cancelled" } },
      ],
    },
  },
  output: ({ context }) => resultOf(context),
});

/** A snapshot of `agentMachine`. */
export type AgentSnapshot = SnapshotFrom<typeof agentMachine>;

/**
 * The request a settled snapshot is waiting on: the one its state emitted on entry, or `null` when
 * it waits for nothing (it is final). An actor restored from a snapshot does not enter its state
 * again, so whoever drives it asks again with this.
 */
export function pendingRequest(snapshot: AgentSnapshot): EffectRequest | null {
  if (snapshot.status !== "active") return null;
  if (snapshot.matches("callingModel")) return modelRequest(snapshot.context);
  if (snapshot.matches({ executingTools: "runningTool" })) return toolRequest(snapshot.context);
  if (snapshot.matches({ executingTools: "awaitingApproval" })) return decisionRequest(snapshot.context);
  return null;
}

function modelRequest(context: AgentContext): EffectRequest {
  return { type: "callModel", transcript: context.transcript, specs: context.specs, step: context.steps + 1 };
}

function toolRequest(context: AgentContext): EffectRequest {
  return { type: "runTool", call: currentCall(context) };
}

function decisionRequest(context: AgentContext): EffectRequest {
  return { type: "requestDecision", call: currentCall(context) };
}

/** The call being answered; the states that ask for it are entered only when there is one. */
function currentCall(context: AgentContext): ToolCall {
  const [call] = context.pendingCalls;
  if (call === undefined) throw new Error("agentMachine: no pending call (a broken invariant)");
  return call;
}
