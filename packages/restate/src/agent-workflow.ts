import "./polyfill.js";
import type { AgentResult, ToolRegistry } from "@agentloop/core";
import { checkAnswer } from "@agentloop/core/driver";
import { resolveTurn } from "@agentloop/core/machine";
import {
  CancelledError,
  TerminalError,
  type WorkflowContext,
  type WorkflowDefinition,
  type WorkflowSharedContext,
  workflow,
} from "@restatedev/restate-sdk";
import { checkLimits } from "./check-limits.js";
import {
  decodeStarted,
  finishedEvent,
  type RunEvent,
  resolveRunSettings,
  SCHEMA_VERSION,
  startMachine,
} from "./core-port.js";
import { driveRun } from "./drive-run.js";
import { CANCEL_PROMISE } from "./journaled-steps.js";
import { checkApplied } from "./refused-options.js";
import { RunLog, readEvents, readStatus } from "./run-log.js";
import { badRequest, readAnswerRequest, readCancelRequest, readDecideRequest, readRunRequest } from "./run-request.js";
import type {
  AnswerRecord,
  AnswerRequest,
  CancelRecord,
  CancelRequest,
  DecideRequest,
  DecisionRecord,
  RunRequest,
  RunStatus,
} from "./types.js";
import type { AgentWorkflowOptions } from "./workflow-options.js";

export type { AgentWorkflowOptions } from "./workflow-options.js";

/**
 * The handlers of an agent workflow, as clients see them: `workflowClient<AgentHandlers>({ name },
 * runId)` of `@restatedev/restate-sdk-clients` (a type alias, not an interface, so that the client's
 * types can read it).
 */
export type AgentHandlers = {
  /** Runs the agent to its end and returns its result (`runId` is the workflow's key). */
  run(ctx: WorkflowContext, request: RunRequest): Promise<AgentResult>;
  /** Decides on a call that waits for a decision; refuses a call that does not wait, or was decided already. */
  decide(ctx: WorkflowSharedContext, request: DecideRequest): Promise<void>;
  /**
   * Answers a question that waits for one, once the answer fits the question's shape; refuses an
   * answer that does not fit, a question that does not wait, or one answered already.
   */
  answer(ctx: WorkflowSharedContext, request: AnswerRequest): Promise<void>;
  /** Ends the run as `cancelled` (a second cancel does nothing). */
  cancel(ctx: WorkflowSharedContext, request?: CancelRequest): Promise<void>;
  /** Where the run stands and which calls wait. */
  status(ctx: WorkflowSharedContext): Promise<RunStatus>;
  /** The run's event log so far, as JSON: read it with `parseEventLog` (an unlimited budget is `null`). */
  events(ctx: WorkflowSharedContext): Promise<unknown[]>;
};

/** An agent workflow's definition: bind it to a Restate endpoint, or name it in a client. */
export type AgentWorkflow = WorkflowDefinition<string, AgentHandlers>;

/**
 * An agent as a Restate workflow keyed by run id: `run` (submitted once per id; a second
 * submission attaches to the first), and the shared handlers `decide`, `answer`, `cancel`, `status`
 * and `events`. Inside `run`, `agentMachine` decides exactly as in `runAgent`; every model call,
 * tool run, decision and answer is a journaled step. Throws a `RangeError` for limits that make no sense, and a
 * `TypeError` naming every option given that a durable run does not apply (see `checkApplied`).
 */
export function agentWorkflow(options: AgentWorkflowOptions): AgentWorkflow {
  checkApplied(options);
  checkLimits(options);
  const turn = resolveTurn(options);
  const handlers: AgentHandlers = {
    run: (ctx, request) => runHandler(ctx, request, options, turn),
    decide: decideHandler,
    answer: (ctx, request) => answerHandler(ctx, request, options.registry),
    cancel: cancelHandler,
    status: statusHandler,
    events: readEvents,
  };
  return workflow({
    name: options.name ?? "agent",
    handlers,
    ...(options.restate ? { options: options.restate } : {}),
  });
}

async function runHandler(
  ctx: WorkflowContext,
  request: RunRequest,
  options: AgentWorkflowOptions,
  turn: Turn,
): Promise<AgentResult> {
  const log = new RunLog(ctx, options.store, options.saveEventsEvery);
  try {
    // Resolved again by a retried execution, alike; logged with the time of the first step's start.
    const started = decodeStarted(ctx.key, startOf(request, options, turn));
    log.deferStart(started);
    const machine = startMachine(started.settings);
    try {
      const summarizer = options.compaction?.summarizer;
      const ports = { ...options, summarizer, checks: turn.ports };
      const ended = await driveRun(ctx, machine, ports, log);
      const result = { ...ended.result, runId: ctx.key };
      await log.append(finishedEvent(result), ended.at);
      const state = machine.position().state;
      log.setStatus(endStatus(ctx.key, log.length, { phase: "finished", result, state }), undefined, true);
      return result;
    } finally {
      machine.stop();
    }
  } catch (error) {
    if (error instanceof TerminalError && !(error instanceof CancelledError)) {
      await log.logStart(() => ctx.date.toJSON());
      log.setStatus(endStatus(ctx.key, log.length, { phase: "failed", error: error.message }), undefined, true);
    }
    throw error;
  }
}

/** A workflow's turn options: what is logged of them, and what performs the checks. */
type Turn = ReturnType<typeof resolveTurn>;

/** The run's first event, its settings resolved as `runAgent` resolves them; bad input is a `TerminalError`. */
function startOf(request: RunRequest, options: AgentWorkflowOptions, turn: Turn): RunEvent {
  const { task, options: asked } = readRunRequest(request);
  const { system, maxSteps, tokenBudget, replyReserve, repeatLimit, onRepeatedCall, toolConcurrency } = options;
  const { compaction, retry, fallbackModels, prepareStep, pricing, costBudget } = options;
  const defaults = { system, maxSteps, tokenBudget, replyReserve, repeatLimit, onRepeatedCall, toolConcurrency };
  const policies = { compaction, retry, fallbackModels, prepareStep, pricing, costBudget };
  const merged = Object.fromEntries(
    Object.entries({ ...defaults, ...policies, ...asked }).filter(([, value]) => value !== undefined),
  );
  try {
    const settings = { ...resolveRunSettings(task, merged, options.model, options.registry), ...turn.checks };
    return { type: "run.started", schemaVersion: SCHEMA_VERSION, settings };
  } catch (error) {
    if (error instanceof RangeError || error instanceof TypeError) throw badRequest(error.message);
    throw error;
  }
}

/** The status of a run that ended: finished with its result, or failed with the model's error. */
function endStatus(
  runId: string,
  events: number,
  end: { phase: "finished" | "failed"; result?: AgentResult; error?: string; state?: string },
): RunStatus {
  const { result = null, error = null } = end;
  const counts = result === null ? {} : { steps: result.steps, tokens: result.tokens };
  return { ...unknownStatus(runId), phase: end.phase, state: end.state ?? null, events, result, error, ...counts };
}

async function decideHandler(ctx: WorkflowSharedContext, input: DecideRequest): Promise<void> {
  const { callId, approved, reason } = readDecideRequest(input);
  const status = await readStatus(ctx);
  const key = status !== null && Object.hasOwn(status.decisionKeys, callId) ? status.decisionKeys[callId] : undefined;
  if (status === null || key === undefined) {
    // A call of the current reply stays known after its decision, so that a second one is told so.
    const waiting = status?.awaitingDecision.map((call) => `'${call.id}'`).join(", ") || "none";
    throw new TerminalError(`run '${ctx.key}': call '${callId}' does not wait for a decision (waiting: ${waiting})`, {
      errorCode: 404,
    });
  }
  const record: DecisionRecord = { approved, at: await ctx.date.toJSON(), ...(reason === undefined ? {} : { reason }) };
  try {
    await ctx.promise<DecisionRecord>(key).resolve(record);
  } catch (error) {
    if (error instanceof TerminalError && error.code === 409) {
      throw new TerminalError(`run '${ctx.key}': call '${callId}' was already decided`, { errorCode: 409 });
    }
    throw error;
  }
}

async function answerHandler(ctx: WorkflowSharedContext, input: AnswerRequest, registry: ToolRegistry): Promise<void> {
  const { callId, answer } = readAnswerRequest(input);
  const status = await readStatus(ctx);
  // A status kept before questions were kept has no keys of them.
  const keys = status?.questionKeys ?? {};
  const asked = Object.hasOwn(keys, callId) ? keys[callId] : undefined;
  if (asked === undefined) {
    // A question of the current reply stays known after its answer, so that a second one is told so.
    const waiting = status?.pendingQuestions?.map((question) => `'${question.id}'`).join(", ") || "none";
    throw new TerminalError(
      `run '${ctx.key}': call '${callId}' waits for no answer (questions that wait: ${waiting})`,
      {
        errorCode: 404,
      },
    );
  }
  const checked = await checkAnswer(registry, asked.tool, answer);
  if (!checked.ok) {
    throw new TerminalError(`run '${ctx.key}': the answer to '${callId}' does not fit: ${checked.problem}`, {
      errorCode: 400,
    });
  }
  const record: AnswerRecord = { answer: checked.value, at: await ctx.date.toJSON() };
  try {
    await ctx.promise<AnswerRecord>(asked.key).resolve(record);
  } catch (error) {
    if (error instanceof TerminalError && error.code === 409) {
      throw new TerminalError(`run '${ctx.key}': call '${callId}' was already answered`, { errorCode: 409 });
    }
    throw error;
  }
}

async function cancelHandler(ctx: WorkflowSharedContext, input?: CancelRequest): Promise<void> {
  const { reason } = readCancelRequest(input);
  const record: CancelRecord = { at: await ctx.date.toJSON(), ...(reason === undefined ? {} : { reason }) };
  try {
    await ctx.promise<CancelRecord>(CANCEL_PROMISE).resolve(record);
  } catch (error) {
    // Cancelled already: the first cancellation stands.
    if (!(error instanceof TerminalError && error.code === 409)) throw error;
  }
}

async function statusHandler(ctx: WorkflowSharedContext): Promise<RunStatus> {
  const kept = await readStatus(ctx);
  if (kept === null) return unknownStatus(ctx.key);
  const { decisionKeys: _keys, questionKeys: _questions, chunks: _chunks, ...status } = kept;
  // A status kept before questions were kept lists none.
  return { ...status, pendingQuestions: status.pendingQuestions ?? [] };
}

/** The status of a run id under which nothing has started. */
function unknownStatus(runId: string): RunStatus {
  return {
    runId,
    phase: "unknown",
    state: null,
    steps: 0,
    tokens: 0,
    events: 0,
    awaitingDecision: [],
    pendingQuestions: [],
    runningTools: [],
    result: null,
    error: null,
  };
}
