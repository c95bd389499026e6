import "./polyfill.js";
import type { AgentResult, ToolRegistry } from "@agentloop/core";
import { checkAnswer, hasChildTools } from "@agentloop/core/driver";
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
  type ChildRunHandlers,
  childRun,
  childrenWaiting,
  listed,
  routeOf,
  type TreeWaiting,
  treeWaiting,
} from "./child-routing.js";
import { agentAt, ChildWorkflows, chainedApprover, childOptions, type RunAgent } from "./child-workflows.js";
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
import {
  badRequest,
  readAnswerRequest,
  readCancelRequest,
  readChildRequest,
  readDecideRequest,
  readRunRequest,
} from "./run-request.js";
import type {
  AnswerRecord,
  AnswerRequest,
  CancelRecord,
  CancelRequest,
  ChildLink,
  ChildRunRequest,
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
  /** Runs the agent to its end and returns its result (`runId` is the workflow's key); a parent run submits its children's own. */
  run(ctx: WorkflowContext, request: RunRequest | ChildRunRequest): Promise<AgentResult>;
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
  /** The calls that wait in the run and its children, by chained id relative to the run (its own escaped): what a parent lists of its child. */
  waiting(ctx: WorkflowSharedContext): Promise<TreeWaiting>;
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
  const name = options.name ?? "agent";
  const handlers: AgentHandlers = {
    run: (ctx, request) => runHandler(ctx, request, options, turn),
    decide: (ctx, request) => decideHandler(ctx, request, name),
    answer: (ctx, request) => answerHandler(ctx, request, options, name),
    cancel: (ctx, request) => cancelHandler(ctx, request, name),
    status: (ctx) => statusHandler(ctx, name),
    events: readEvents,
    waiting: async (ctx) => treeWaiting(ctx, name, await readStatus(ctx)),
  };
  return workflow({
    name,
    handlers,
    ...(options.restate ? { options: options.restate } : {}),
  });
}

async function runHandler(
  ctx: WorkflowContext,
  request: RunRequest | ChildRunRequest,
  options: AgentWorkflowOptions,
  turn: Turn,
): Promise<AgentResult> {
  const log = new RunLog(ctx, options.store, options.saveEventsEvery);
  try {
    const link = "child" in request ? readChildRequest(request).child : null;
    const root: RunAgent = { model: options.model, registry: options.registry, options };
    const agent = link === null ? root : agentAt(root, link.tools);
    const agentTurn = link === null ? turn : resolveTurn(agent.options);
    // Resolved again by a retried execution, alike; logged with the time of the first step's start.
    const begin =
      link === null
        ? startOf(request as RunRequest, options, turn)
        : childStartOf(request.task, agent, link, agentTurn);
    // A child's questions are checked against its own agent's tools.
    if (link !== null) ctx.set(AGENT_KEY, link.tools);
    const started = decodeStarted(ctx.key, begin);
    log.deferStart(started);
    const machine = startMachine(started.settings);
    try {
      const context = () => machine.driven.snapshot().context;
      const { pricing } = started.settings;
      const children = hasChildTools(agent.registry)
        ? new ChildWorkflows(ctx.key, agent, link, context, pricing)
        : undefined;
      const ports =
        link === null
          ? { ...options, summarizer: options.compaction?.summarizer, checks: turn.ports }
          : childPorts(agent, options, link, agentTurn);
      const ended = await driveRun(ctx, machine, { ...ports, children, workflow: options.name ?? "agent" }, log);
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

/** The state that names the agent tool a child run runs (by its path from the root's registry). */
const AGENT_KEY = "agent tools";

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

/** A child's first event: its agent's settings with its share of the parent's budget, and its parent's run and call. */
function childStartOf(task: string, agent: RunAgent, link: ChildLink, turn: Turn): RunEvent {
  const resolved = resolveRunSettings(task, childOptions(agent, link), agent.model, agent.registry);
  const settings = { ...resolved, ...turn.checks };
  return { type: "run.started", schemaVersion: SCHEMA_VERSION, settings, parent: link.parent };
}

/** What a child runs with: its agent's model, tools and policies, the root's approver (shown chained ids) and Restate retries. */
function childPorts(agent: RunAgent, options: AgentWorkflowOptions, link: ChildLink, turn: Turn) {
  const { model, registry, options: own } = agent;
  const { fallbackModels, prepareStep } = own;
  const approve = chainedApprover(options.approve, link);
  const summarizer = own.compaction?.summarizer;
  return {
    model,
    registry,
    fallbackModels,
    prepareStep,
    summarizer,
    approve,
    modelRetry: options.modelRetry,
    checks: turn.ports,
  };
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

async function decideHandler(ctx: WorkflowSharedContext, input: DecideRequest, workflow: string): Promise<void> {
  const { callId, approved, reason } = readDecideRequest(input);
  const status = await readStatus(ctx);
  const key = status !== null && Object.hasOwn(status.decisionKeys, callId) ? status.decisionKeys[callId] : undefined;
  const route = key === undefined ? routeOf(status, callId) : null;
  if (route !== null) {
    const decision = reason === undefined ? { approved } : { approved, reason };
    return childRun(ctx, workflow, route.childRunId).decide({ callId: route.callId, ...decision });
  }
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

async function answerHandler(
  ctx: WorkflowSharedContext,
  input: AnswerRequest,
  options: AgentWorkflowOptions,
  workflow: string,
): Promise<void> {
  const { callId, answer } = readAnswerRequest(input);
  const status = await readStatus(ctx);
  // A status kept before questions were kept has no keys of them.
  const keys = status?.questionKeys ?? {};
  const asked = Object.hasOwn(keys, callId) ? keys[callId] : undefined;
  const route = asked === undefined ? routeOf(status, callId) : null;
  if (route !== null) return childRun(ctx, workflow, route.childRunId).answer({ callId: route.callId, answer });
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
  const checked = await checkAnswer(await registryOf(ctx, options), asked.tool, answer);
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

async function cancelHandler(ctx: WorkflowSharedContext, input: CancelRequest | undefined, workflow: string) {
  const { reason } = readCancelRequest(input);
  // The children running end with their parent, as runAgent's do.
  const runs = (await readStatus(ctx))?.childRuns ?? {};
  for (const childRunId of Object.values(runs)) {
    ctx.workflowSendClient<ChildRunHandlers>({ name: workflow }, childRunId).cancel(input);
  }
  const record: CancelRecord = { at: await ctx.date.toJSON(), ...(reason === undefined ? {} : { reason }) };
  try {
    await ctx.promise<CancelRecord>(CANCEL_PROMISE).resolve(record);
  } catch (error) {
    // Cancelled already: the first cancellation stands.
    if (!(error instanceof TerminalError && error.code === 409)) throw error;
  }
}

async function statusHandler(ctx: WorkflowSharedContext, workflow: string): Promise<RunStatus> {
  const kept = await readStatus(ctx);
  if (kept === null) return unknownStatus(ctx.key);
  const { decisionKeys: _keys, questionKeys: _questions, chunks: _chunks, childRuns: _runs, ...status } = kept;
  // A status kept before questions were kept lists none.
  const own = { ...status, pendingQuestions: status.pendingQuestions ?? [] };
  const chained = await childrenWaiting(ctx, workflow, kept);
  if (chained.calls.length === 0 && chained.questions.length === 0) return own;
  // A child's calls that wait are the tree's: the run waits for them as runAgent's tree does.
  const awaitingDecision = listed(own.awaitingDecision, chained.calls);
  const pendingQuestions = listed(own.pendingQuestions, chained.questions);
  const phase =
    own.phase !== "running" ? own.phase : awaitingDecision.length > 0 ? "awaiting_approval" : "awaiting_input";
  return { ...own, phase, awaitingDecision, pendingQuestions };
}

/** The registry whose tools a run's questions are asked by: its agent's, the root's or an agent tool's. */
async function registryOf(ctx: WorkflowSharedContext, options: AgentWorkflowOptions): Promise<ToolRegistry> {
  const tools = (await ctx.get<readonly string[]>(AGENT_KEY)) ?? [];
  return agentAt({ model: options.model, registry: options.registry, options }, tools).registry;
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
