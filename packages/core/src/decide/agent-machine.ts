import { assertEvent, assign, emit, enqueueActions, type SnapshotFrom, setup } from "xstate";
import type { AgentEvent, AgentRequest, AgentResult, AgentStatus, GuardrailStage } from "../data/index.js";
import { type AgentContext, type AgentMachineInput, initialContext, resultOf, specsTokensOf } from "./agent-context.js";
import {
  allCallsAnswered,
  appendReply,
  closeCalls,
  enterCalls,
  isAnyCallRunning,
  isAwaitedDecision,
  isLastResult,
  isOverBudget,
  isOverCostBudget,
  isRefusal,
  isRunningCall,
  isStepLimitReached,
  isStoppedByRepeat,
  recordAnswer,
  recordDecision,
  recordResult,
} from "./agent-decisions.js";
import { isPauseFromRunningCall, isResumeOfPausedCall, recordPause, recordResume } from "./child-pauses.js";
import {
  compactionRequest,
  isPlannedCompaction,
  isSummaryOverBudget,
  isSummaryOverCostBudget,
  needsCompaction,
  recordCompaction,
} from "./compaction.js";
import {
  firstTrip,
  hasOutputGuardrails,
  isAwaitedVerdict,
  isGuardPassed,
  isInputUnguarded,
  passGuard,
  recordVerdict,
  startGuard,
} from "./guardrail-decisions.js";
import { profileOf } from "./handoff-state.js";
import { handoffRequest, isAwaitedHandoff, isHandoffDue, recordHandoff } from "./handoffs.js";
import { isAwaitedRecall, needsRecall, recallRequest, recordRecall } from "./memory-recall.js";
import { clearAttempts, hasFallback, mayRetry, nextModel, recordFailure, waitRequest } from "./model-retry.js";
import {
  acceptOutput,
  giveUpOutput,
  isOutOfOutputRetries,
  needsOutputCheck,
  rejectOutput,
} from "./output-decisions.js";
import { modelRequest, outputCheckRequest } from "./pending-requests.js";
import { isAnyDecisionAwaited, isAwaitedAnswer } from "./questions.js";
import { isPlannedPreparation, needsPreparing, preparationRequest, recordPreparation } from "./step-preparation.js";
import { isAskFromRunningCall, recordAsk } from "./tool-asks.js";

const DECIDED = { guard: "isAwaitedDecision", target: "nextCalls", actions: ["recordDecision", "enterCalls"] } as const;
const ANSWERED = { guard: "isAwaitedAnswer", target: "nextCalls", actions: ["recordAnswer", "enterCalls"] } as const;
const RESUMED = { guard: "isResumeOfPausedCall", target: "nextCalls", actions: "recordResume" } as const;

/**
 * The agent loop as a statechart. `budgetCheck` decides, before every model call, whether the step
 * limit, the token budget or the cost budget ends the run, or whether the prompt calls for a compacted view first
 * (`compacting` asks for it with `compactContext`, checks the summarizer's call against the budget
 * first, and goes back to `budgetCheck`, which then finds nothing more to hide); `callingModel` waits for `model.replied`; a refusal ends
 * it in `refused`, a reply without tool calls is the answer (`done`), otherwise `executingTools`
 * answers its calls. Calls are taken up (`enterCalls`) in call order while fewer than
 * `toolConcurrency` are in progress — when the reply comes, and each time a result or a decision
 * frees a place: a call that needs approval waits for its decision, the others run. `nextCalls`
 * then decides: every call answered goes back to `budgetCheck`; a repeated call under the `stop`
 * policy ends the run in `repeatedCall`; the machine waits in `runningTools` while a call runs, or
 * in `awaitingDecision` when only decisions are awaited. The result that answers the last call
 * left goes straight back to `budgetCheck`. Tool messages are appended in call order, whatever
 * order the results come in. `run.cancelled` ends the run from any state in `cancelled`.
 * With `retry` or `fallbackModels`, a failed call (`model.failed`) waits in `retryWait` and goes
 * back through `budgetCheck` to the same model while it has attempts left, then to the next
 * fallback model; when none is left the step's attempts are cleared and the driver rejects.
 * With `prepareStep`, each model call's settings are asked for before it: within the call's own
 * request, whose answer is the reply when they change nothing, or `step.prepared` when they do
 * (back to the budget check, which then counts the tools offered and reserves for the model
 * picked); a step over the budget at the run's settings waits in `preparingStep` for them
 * first, since fewer tools or a smaller model may bring it under. A call of an ask-user
 * tool waits for a person's answer (`question.answered`): in `awaitingInput` when nothing else is
 * in progress, or with the decisions in `awaitingDecision`. So does a running call whose tool asked
 * a question (`tool.asked`): it ends without an observation, and once answered it is made again.
 * A running agent tool's call whose child paused (`tool.paused`) waits the same way, paused in its
 * child, with what waits below it by chained id: in `awaitingDecision` while a decision waits
 * below, else in `awaitingInput`, until `tool.resumed` makes it run again.
 * With handoff tools, a reply's first handoff call is answered at once and any later one refused;
 * once every call of the reply has its tool message the run waits in `handingOff` for the
 * target's view of the conversation (`handoff`), and goes on with the target's tools from `budgetCheck`.
 *
 * With `memory`, each turn recalls once, in `recalling`, after its input guardrails and before its
 * first budget check (`recallMemory`, answered by `memory.recalled`): the hits join the turn as
 * quoted data, so the budget counts them before the call.
 *
 * The machine performs nothing itself. Every guard and assign is a pure function of context and
 * event; what it needs done it emits as a request (`callModel`, `runTool`, `requestDecision`), and
 * whoever drives it answers with events (`runAgent` and Restate do, through `RunLoop`). So the same
 * events folded through `transition()` rebuild a run, and a run has no actor but its own.
 */
export const agentMachine = setup({
  types: {
    input: {} as AgentMachineInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
    emitted: {} as AgentRequest,
    output: {} as AgentResult,
  },
  guards: {
    isStepLimitReached: ({ context }) => isStepLimitReached(context),
    isOverBudget: ({ context }) => isOverBudget(context),
    needsCompaction: ({ context }) => needsCompaction(context),
    isSummaryOverBudget: ({ context }) => isSummaryOverBudget(context),
    isOverCostBudget: ({ context }) => isOverCostBudget(context),
    isSummaryOverCostBudget: ({ context }) => isSummaryOverCostBudget(context),
    isPlannedCompaction: ({ context, event }) => {
      assertEvent(event, "context.compacted");
      return isPlannedCompaction(context, event);
    },
    isRefusal: ({ event }) => {
      assertEvent(event, "model.replied");
      return isRefusal(event.reply);
    },
    hasToolCalls: ({ event }) => {
      assertEvent(event, "model.replied");
      return event.reply.toolCalls.length > 0;
    },
    allCallsAnswered: ({ context }) => allCallsAnswered(context),
    isStoppedByRepeat: ({ context }) => isStoppedByRepeat(context),
    isAnyCallRunning: ({ context }) => isAnyCallRunning(context),
    isRunningCall: ({ context, event }) => {
      assertEvent(event, "tool.finished");
      return isRunningCall(context, event);
    },
    isLastResult: ({ context, event }) => {
      assertEvent(event, "tool.finished");
      return isLastResult(context, event);
    },
    isAwaitedDecision: ({ context, event }) => {
      assertEvent(event, "approval.decided");
      return isAwaitedDecision(context, event);
    },
    isAnyDecisionAwaited: ({ context }) => isAnyDecisionAwaited(context),
    isAskFromRunningCall: ({ context, event }) => {
      assertEvent(event, "tool.asked");
      return isAskFromRunningCall(context, event);
    },
    isPauseFromRunningCall: ({ context, event }) => {
      assertEvent(event, "tool.paused");
      return isPauseFromRunningCall(context, event);
    },
    isResumeOfPausedCall: ({ context, event }) => {
      assertEvent(event, "tool.resumed");
      return isResumeOfPausedCall(context, event);
    },
    isAwaitedAnswer: ({ context, event }) => {
      assertEvent(event, "question.answered");
      return isAwaitedAnswer(context, event);
    },
    needsPreparingFirst: ({ context }) =>
      needsPreparing(context) && (isOverBudget(context) || isOverCostBudget(context)),
    isPlannedPreparation: ({ context, event }) => {
      assertEvent(event, "step.prepared");
      return isPlannedPreparation(context, event);
    },
    mayRetry: ({ context, event }) => {
      assertEvent(event, "model.failed");
      return mayRetry(context, event);
    },
    hasFallback: ({ context }) => hasFallback(context),
    needsOutputCheck: ({ context }) => needsOutputCheck(context),
    isValidOutput: ({ event }) => {
      assertEvent(event, "output.checked");
      return event.valid;
    },
    isOutOfOutputRetries: ({ context }) => isOutOfOutputRetries(context),
    isInputUnguarded: ({ context }) => isInputUnguarded(context),
    hasOutputGuardrails: ({ context }) => hasOutputGuardrails(context),
    isAwaitedVerdict: ({ context, event }) => {
      assertEvent(event, "guardrail.checked");
      return isAwaitedVerdict(context, event);
    },
    isHandoffDue: ({ context }) => isHandoffDue(context),
    isLastResultBeforeHandoff: ({ context, event }) => {
      assertEvent(event, "tool.finished");
      return context.handoffs?.pending != null && isLastResult(context, event);
    },
    isAwaitedHandoff: ({ context, event }) => {
      assertEvent(event, "handoff");
      return isAwaitedHandoff(context, event);
    },
    isGuardTripped: ({ context }) => firstTrip(context) !== null,
    isGuardPassed: ({ context }) => isGuardPassed(context),
    needsRecall: ({ context }) => needsRecall(context),
    isAwaitedRecall: ({ context, event }) => {
      assertEvent(event, "memory.recalled");
      return isAwaitedRecall(context, event);
    },
  },
  actions: {
    requestModelReply: emit(({ context }) => modelRequest(context)),
    requestCompaction: emit(({ context }) => compactionRequest(context)),
    recordCompaction: assign(({ context, event }) => {
      assertEvent(event, "context.compacted");
      return recordCompaction(context, event);
    }),
    appendReply: assign(({ context, event }) => {
      assertEvent(event, "model.replied");
      return appendReply(context, event.reply);
    }),
    // Takes up the calls it may. On the reply that brought them it appends the reply first, in the
    // same assign: every assign copies the whole context, and this is one copy fewer per step.
    enterCalls: enqueueActions(({ context, event, enqueue }) => {
      const appended = event.type === "model.replied" ? appendReply(context, event.reply) : null;
      const { changes, requests } = enterCalls(appended === null ? context : { ...context, ...appended });
      enqueue.assign(appended === null ? changes : { ...appended, ...changes });
      for (const request of requests) enqueue.emit(request);
    }),
    recordResult: assign(({ context, event }) => {
      assertEvent(event, "tool.finished");
      return recordResult(context, event);
    }),
    recordDecision: recording("approval.decided", recordDecision),
    recordAnswer: recording("question.answered", recordAnswer),
    recordAsk: recording("tool.asked", recordAsk),
    recordPause: recording("tool.paused", recordPause),
    recordResume: recording("tool.resumed", recordResume),
    requestHandoff: emit(({ context }) => handoffRequest(context)),
    recordHandoff: assign(({ context, event }) => {
      assertEvent(event, "handoff");
      const handoffs = context.handoffs;
      const tools = handoffs === null ? [] : profileOf(handoffs, event.to).tools;
      return recordHandoff(context, event, specsTokensOf(tools));
    }),
    requestPreparation: emit(({ context }) => preparationRequest(context)),
    recordPreparation: assign(({ context, event }) => {
      assertEvent(event, "step.prepared");
      return recordPreparation(context, event);
    }),
    closeCalls: assign(({ context }, params: { why: string }) => closeCalls(context, params.why)),
    finish: assign((_, params: { status: AgentStatus }) => ({ status: params.status })),
    recordFailure: assign(({ context, event }) => {
      assertEvent(event, "model.failed");
      return context.retry === null ? {} : recordFailure({ ...context, retry: context.retry }, event);
    }),
    nextModel: assign(({ context }) => nextModel(context)),
    clearAttempts: assign(() => clearAttempts()),
    requestRetryWait: emit(({ context }) => waitRequest(context)),
    requestOutputCheck: emit(({ context }) => outputCheckRequest(context)),
    acceptOutput: assign(({ event }) => {
      assertEvent(event, "output.checked");
      return event.valid ? acceptOutput(event) : {};
    }),
    rejectOutput: assign(({ context, event }) => {
      assertEvent(event, "output.checked");
      return event.valid ? {} : rejectOutput(context, event);
    }),
    giveUpOutput: assign(({ context }) => giveUpOutput(context)),
    startGuard: enqueueActions(({ context, enqueue }, params: { stage: GuardrailStage }) => {
      const { changes, requests } = startGuard(context, params.stage);
      enqueue.assign(changes);
      for (const request of requests) enqueue.emit(request);
    }),
    recordVerdict: assign(({ context, event }) => {
      assertEvent(event, "guardrail.checked");
      return recordVerdict(context, event);
    }),
    passGuard: assign(({ context }) => passGuard(context)),
    recordCeiling: assign(({ event }) => {
      assertEvent(event, "ceiling.reached");
      const { window, limit, spent, reserve } = event;
      return { ceiling: { window, limit, spent, reserve } };
    }),
    tripGuard: assign(({ context }) => ({ guardrail: firstTrip(context), guard: null })),
    requestRecall: emit(({ context }) => recallRequest(context)),
    recordRecall: assign(({ context, event }) => {
      assertEvent(event, "memory.recalled");
      return recordRecall(context, event);
    }),
  },
}).createMachine({
  id: "agent",
  context: ({ input }) => initialContext(input),
  on: { "run.cancelled": { target: ".cancelled" } },
  initial: "budgetCheck",
  states: {
    budgetCheck: {
      always: [
        { guard: "isInputUnguarded", target: "guardingInput" },
        { guard: "needsRecall", target: "recalling" },
        { guard: "isStepLimitReached", target: "stepLimit" },
        { guard: "needsCompaction", target: "compacting" },
        { guard: "needsPreparingFirst", target: "preparingStep" },
        { guard: "isOverBudget", target: "tokenBudget" },
        { guard: "isOverCostBudget", target: "costBudget" },
        { target: "callingModel" },
      ],
    },
    recalling: {
      entry: "requestRecall",
      on: {
        // Back to the budget check, which now counts the recalled memories the model will be shown.
        "memory.recalled": { guard: "isAwaitedRecall", target: "budgetCheck", actions: "recordRecall" },
      },
    },
    compacting: {
      initial: "checkingSummary",
      states: {
        checkingSummary: {
          always: [
            { guard: "isSummaryOverBudget", target: "#agent.tokenBudget" },
            { guard: "isSummaryOverCostBudget", target: "#agent.costBudget" },
            { target: "awaitingView" },
          ],
        },
        awaitingView: {
          entry: "requestCompaction",
          on: {
            "context.compacted": {
              guard: "isPlannedCompaction",
              // Back to the budget check: the list is what it was, so nothing more is left to hide and
              // the trigger cannot send the run here again before the next reply.
              target: "#agent.budgetCheck",
              actions: "recordCompaction",
            },
          },
        },
      },
    },
    preparingStep: {
      entry: "requestPreparation",
      on: {
        // Back to the budget check, which now counts what the step offers and reserves for the model it calls.
        "step.prepared": { guard: "isPlannedPreparation", target: "budgetCheck", actions: "recordPreparation" },
      },
    },
    callingModel: {
      entry: "requestModelReply",
      on: {
        // What `prepareStep`, asked in the call's own performance, decided: checked like any step's settings.
        "step.prepared": { guard: "isPlannedPreparation", target: "budgetCheck", actions: "recordPreparation" },
        "model.replied": [
          { guard: "isRefusal", target: "refused", actions: "appendReply" },
          { guard: "hasToolCalls", target: "executingTools", actions: "enterCalls" },
          { guard: "needsOutputCheck", target: "checkingOutput", actions: "appendReply" },
          { guard: "hasOutputGuardrails", target: "guardingOutput", actions: "appendReply" },
          { target: "done", actions: "appendReply" },
        ],
        // The owner's spending ceiling refused the call before it was made.
        "ceiling.reached": { target: "costBudget", actions: "recordCeiling" },
        "model.failed": [
          { guard: "mayRetry", target: "retryWait", actions: "recordFailure" },
          { guard: "hasFallback", target: "budgetCheck", actions: "nextModel" },
          { target: "budgetCheck", actions: "clearAttempts" },
        ],
      },
    },
    retryWait: {
      entry: "requestRetryWait",
      on: { "retry.waited": { target: "budgetCheck" } },
    },
    checkingOutput: {
      entry: "requestOutputCheck",
      on: {
        "output.checked": [
          { guard: "isValidOutput", target: "answered", actions: "acceptOutput" },
          { guard: "isOutOfOutputRetries", target: "invalidOutput", actions: "giveUpOutput" },
          { target: "budgetCheck", actions: "rejectOutput" },
        ],
      },
    },
    answered: {
      always: [{ guard: "hasOutputGuardrails", target: "guardingOutput" }, { target: "done" }],
    },
    guardingInput: guardingStage("input", "#agent.budgetCheck"),
    guardingOutput: guardingStage("output", "#agent.done"),
    executingTools: {
      initial: "nextCalls",
      states: {
        nextCalls: {
          always: [
            { guard: "isHandoffDue", target: "#agent.handingOff" },
            { guard: "allCallsAnswered", target: "#agent.budgetCheck" },
            { guard: "isStoppedByRepeat", target: "#agent.repeatedCall" },
            { guard: "isAnyCallRunning", target: "runningTools" },
            { guard: "isAnyDecisionAwaited", target: "awaitingDecision" },
            { target: "awaitingInput" },
          ],
        },
        runningTools: {
          on: {
            "tool.finished": [
              { guard: "isLastResultBeforeHandoff", target: "#agent.handingOff", actions: "recordResult" },
              { guard: "isLastResult", target: "#agent.budgetCheck", actions: "recordResult" },
              { guard: "isRunningCall", target: "nextCalls", actions: ["recordResult", "enterCalls"] },
            ],
            // A call that asked a question ends without its observation: it waits for the answer, then runs again.
            "tool.asked": { guard: "isAskFromRunningCall", target: "nextCalls", actions: "recordAsk" },
            // A call whose child paused waits, paused in it, for a decision or an answer below; then it runs again.
            "tool.paused": { guard: "isPauseFromRunningCall", target: "nextCalls", actions: "recordPause" },
            "tool.resumed": RESUMED,
            "approval.decided": DECIDED,
            "question.answered": ANSWERED,
          },
        },
        awaitingDecision: {
          on: { "approval.decided": DECIDED, "question.answered": ANSWERED, "tool.resumed": RESUMED },
        },
        awaitingInput: { on: { "question.answered": ANSWERED, "tool.resumed": RESUMED } },
      },
    },
    // Every call of the reply has its tool message: the conversation goes to the agent the first handoff named.
    handingOff: {
      entry: "requestHandoff",
      on: { handoff: { guard: "isAwaitedHandoff", target: "budgetCheck", actions: "recordHandoff" } },
    },
    done: { type: "final", entry: { type: "finish", params: { status: "done" } } },
    stepLimit: { type: "final", entry: { type: "finish", params: { status: "step_limit" } } },
    tokenBudget: { type: "final", entry: { type: "finish", params: { status: "token_budget" } } },
    costBudget: { type: "final", entry: { type: "finish", params: { status: "cost_budget" } } },
    invalidOutput: { type: "final", entry: { type: "finish", params: { status: "invalid_output" } } },
    guardrailTripped: {
      type: "final",
      entry: ["tripGuard", { type: "finish", params: { status: "guardrail_tripped" } }],
    },
    refused: {
      type: "final",
      entry: [
        { type: "closeCalls", params: { why: "the model refused" } },
        { type: "finish", params: { status: "refused" } },
      ],
    },
    repeatedCall: {
      type: "final",
      entry: [
        { type: "closeCalls", params: { why: "the run stopped because a call was repeated" } },
        { type: "finish", params: { status: "repeated_call" } },
      ],
    },
    cancelled: {
      type: "final",
      entry: [
        { type: "closeCalls", params: { why: "the run was cancelled" } },
        { type: "finish", params: { status: "cancelled" } },
      ],
    },
  },
  output: ({ context }) => resultOf(context),
});

/**
 * A guardrail stage as a state of its own: entering it asks for every check at once; it waits in
 * `waiting` for verdicts and weighs each one in `weighing`, leaving for `guardrailTripped` on the
 * first trip in order of declaration, or for `passed` once all passed.
 */
function guardingStage(stage: GuardrailStage, passed: string) {
  return {
    entry: { type: "startGuard", params: { stage } },
    initial: "waiting",
    states: {
      waiting: {
        on: { "guardrail.checked": { guard: "isAwaitedVerdict", target: "weighing", actions: "recordVerdict" } },
      },
      weighing: {
        always: [
          { guard: "isGuardTripped", target: "#agent.guardrailTripped" },
          { guard: "isGuardPassed", target: passed, actions: "passGuard" },
          { target: "waiting" },
        ],
      },
    },
  } as const;
}

/** What a decision makes of an event: the context's changes, and the requests it emits. */
type Recorded = { readonly changes: Partial<AgentContext>; readonly requests: readonly AgentRequest[] };

/** The events of one type. */
type EventOf<Type extends AgentEvent["type"]> = Extract<AgentEvent, { type: Type }>;

/**
 * The action that records an event of `type` through `record`, a pure function of context and
 * event: its changes are assigned, then its requests emitted.
 */
function recording<Type extends AgentEvent["type"]>(
  type: Type,
  record: (context: AgentContext, event: EventOf<Type>) => Recorded,
) {
  // The machine's own types: no actors, named actions, guards or delays are used from here.
  return enqueueActions<AgentContext, AgentEvent, undefined, AgentEvent, never, never, never, never, AgentRequest>(
    ({ context, event, enqueue }) => {
      if (!isOfType(event, type)) throw new Error(`expected a ${type} event, got ${event.type}`);
      const { changes, requests } = record(context, event);
      enqueue.assign(changes);
      for (const request of requests) enqueue.emit(request);
    },
  );
}

function isOfType<Type extends AgentEvent["type"]>(event: AgentEvent, type: Type): event is EventOf<Type> {
  return event.type === type;
}

/** A snapshot of `agentMachine`. */
export type AgentSnapshot = SnapshotFrom<typeof agentMachine>;
