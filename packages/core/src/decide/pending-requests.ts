import type { AgentRequest, ToolCall } from "../data/index.js";
import { type AgentContext, currentPrepared } from "./agent-context.js";
import { isPausedCall, pausedRequest } from "./child-pauses.js";
import { compactionRequest, shownView } from "./compaction.js";
import { startGuard } from "./guardrail-decisions.js";
import { agentOfRequest, handoffRequest } from "./handoffs.js";
import { recallRequest } from "./memory-recall.js";
import { currentAttempt, waitRequest } from "./model-retry.js";
import { isQuestion, questionRequest } from "./questions.js";
import { preparationRequest, preparesInCall } from "./step-preparation.js";
import { isAskingCall, runToolRequest, toolAskRequest } from "./tool-asks.js";

// What a settled snapshot of the machine waits on, kind by kind (`pendingRequests`), and the
// requests the machine emits that are built from its context alone.

/**
 * What the table reads of a snapshot of `agentMachine` (`AgentSnapshot` is one): its status, its
 * context and which state it is in. Said here rather than imported, so that the machine, which
 * emits the requests this module builds, can import it.
 */
export interface SettledSnapshot {
  readonly status: string;
  readonly context: AgentContext;
  matches(state: string | { readonly [state: string]: string }): boolean;
}

/** Where a kind of request waits for its answer, and the requests of that kind a settled snapshot there waits on. */
interface PendingRow {
  waits(snapshot: SettledSnapshot): boolean;
  requests(context: AgentContext): AgentRequest[];
}

/** The kinds asked for the calls of a reply: walked together, in call order. */
const IN_BATCH: PendingRow = { waits: (snapshot) => snapshot.matches("executingTools"), requests: batchRequests };

/**
 * Every kind of request the machine makes, with the state it waits in: a kind without its row here
 * does not compile. The states are apart, so the first row whose state the snapshot is in says it all.
 */
const PENDING = {
  callModel: { waits: (snapshot) => snapshot.matches("callingModel"), requests: (context) => [modelRequest(context)] },
  compactContext: {
    waits: (snapshot) => snapshot.matches({ compacting: "awaitingView" }),
    requests: (context) => [compactionRequest(context)],
  },
  prepareStep: {
    waits: (snapshot) => snapshot.matches("preparingStep"),
    requests: (context) => [preparationRequest(context)],
  },
  recallMemory: { waits: (snapshot) => snapshot.matches("recalling"), requests: (context) => [recallRequest(context)] },
  waitRetry: { waits: (snapshot) => snapshot.matches("retryWait"), requests: (context) => [waitRequest(context)] },
  checkOutput: {
    waits: (snapshot) => snapshot.matches("checkingOutput"),
    requests: (context) => [outputCheckRequest(context)],
  },
  handOff: { waits: (snapshot) => snapshot.matches("handingOff"), requests: (context) => [handoffRequest(context)] },
  checkGuardrail: {
    waits: (snapshot) => snapshot.matches("guardingInput") || snapshot.matches("guardingOutput"),
    requests: pendingChecks,
  },
  runTool: IN_BATCH,
  resumeChild: IN_BATCH,
  requestDecision: IN_BATCH,
  askUser: IN_BATCH,
} as const satisfies { readonly [K in AgentRequest["type"]]: PendingRow };

const PENDING_ROWS: readonly PendingRow[] = Object.values(PENDING);

/**
 * The requests a settled snapshot is waiting on: the ones its states emitted and nobody has
 * answered yet — the model call, or each running call and each call waiting for a decision —
 * or none when it is final. An actor restored from a snapshot does not enter its state again, so
 * whoever drives it performs these.
 */
export function pendingRequests(snapshot: SettledSnapshot): AgentRequest[] {
  if (snapshot.status !== "active") return [];
  const row = PENDING_ROWS.find((each) => each.waits(snapshot));
  return row === undefined ? [] : row.requests(snapshot.context);
}

/** The requests the calls of a reply wait on, in call order: each running call, and each call waiting for a decision or an answer. */
function batchRequests(context: AgentContext): AgentRequest[] {
  const { batch } = context;
  if (batch === null) return [];
  const requests: AgentRequest[] = [];
  for (let index = batch.appended; index < batch.calls.length; index++) {
    const state = batch.stateOf(index);
    const call = batch.calls[index] as ToolCall;
    if (state === "running" && context.childPauses.length > 0 && isPausedCall(context, call.id)) {
      requests.push(pausedRequest(context, call));
    } else if (state === "running") {
      requests.push(isAskingCall(context, call.id) ? toolAskRequest(context, call) : runToolRequest(context, call));
    }
    if (state !== "deciding") continue;
    requests.push(isQuestion(context, call) ? questionRequest(context, call) : { type: "requestDecision", call });
  }
  return requests;
}

/** The request that checks the answer against the run's output schema. */
/** What the machine emits to have a turn's answer checked against its output schema. */
export function outputCheckRequest(context: AgentContext): AgentRequest {
  return { type: "checkOutput", text: context.answer ?? "" };
}

/** The guardrails of the stage in progress that have no verdict yet: a resumed run asks only these. */
function pendingChecks(context: AgentContext): AgentRequest[] {
  const { guard } = context;
  if (guard === null) return [];
  const { requests } = startGuard(context, guard.stage);
  return requests.filter((_, index) => guard.verdicts[index] === null);
}

/** What the machine emits to have the model called for the next step. */
export function modelRequest(context: AgentContext): AgentRequest {
  const prepared = currentPrepared(context);
  // Built as one object whose fields are set in one order: spreading a request into variants per
  // step made this a hot spot when prepareStep is given.
  const request: Mutable<ModelRequest> = {
    type: "callModel",
    transcript: context.transcript,
    specs: prepared === null ? context.specs : prepared.specs,
    step: context.steps + 1,
  };
  if (context.compaction !== null) {
    const view = shownView(context);
    if (view !== undefined) request.view = view;
  }
  if (prepared !== null) request.prepared = prepared.event;
  else if (preparesInCall(context)) request.prepare = true;
  if (context.retry !== null) request.model = currentAttempt(context).model;
  if (context.handoffs !== null) request.agent = agentOfRequest(context.handoffs);
  return request;
}

type ModelRequest = Extract<AgentRequest, { type: "callModel" }>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
