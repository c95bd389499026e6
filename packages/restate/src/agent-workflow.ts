import "./polyfill.js";
import type { AgentResult } from "@agentloop/core";
import { checkChildPrices, hasChildTools, parentContext } from "@agentloop/core/driver";
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
import { type TreeWaiting, treeWaiting } from "./child-routing.js";
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
import { checkApplied } from "./refused-options.js";
import { RunLog, readEvents, readStatus } from "./run-log.js";
import { badRequest, readChildRequest, readRunRequest } from "./run-request.js";
import {
  AGENT_KEY,
  answerHandler,
  cancelHandler,
  decideHandler,
  statusHandler,
  unknownStatus,
} from "./shared-handlers.js";
import type {
  AnswerRequest,
  CancelRequest,
  ChildLink,
  ChildRunRequest,
  DecideRequest,
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
      const context = parentContext(machine.driven);
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
  return refusingBadInput(() => {
    const settings = { ...resolveRunSettings(task, merged, options.model, options.registry), ...turn.checks };
    checkChildPrices(settings, options.registry);
    return { type: "run.started", schemaVersion: SCHEMA_VERSION, settings };
  });
}

/** The run's first event, or a `TerminalError` (HTTP 400, never retried) for settings `runAgent` refuses. */
function refusingBadInput(start: () => RunEvent): RunEvent {
  try {
    return start();
  } catch (error) {
    if (error instanceof RangeError || error instanceof TypeError) throw badRequest(error.message);
    throw error;
  }
}

/** A child's first event: its agent's settings with its share of the parent's budget, and its parent's run and call. */
function childStartOf(task: string, agent: RunAgent, link: ChildLink, turn: Turn): RunEvent {
  return refusingBadInput(() => {
    const resolved = resolveRunSettings(task, childOptions(agent, link), agent.model, agent.registry);
    const settings = { ...resolved, ...turn.checks };
    checkChildPrices(settings, agent.registry);
    return { type: "run.started", schemaVersion: SCHEMA_VERSION, settings, parent: link.parent };
  });
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
