import type { ToolRegistry } from "@agentloop/core";
import { checkAnswer } from "@agentloop/core/driver";
import { TerminalError, type WorkflowSharedContext } from "@restatedev/restate-sdk";
import { type ChildRunHandlers, childRun, childrenWaiting, listed, routeOf } from "./child-routing.js";
import { agentAt } from "./child-workflows.js";
import { CANCEL_PROMISE } from "./journaled-steps.js";
import { readStatus } from "./run-log.js";
import { readAnswerRequest, readCancelRequest, readDecideRequest } from "./run-request.js";
import type {
  AnswerRecord,
  AnswerRequest,
  CancelRecord,
  CancelRequest,
  DecideRequest,
  DecisionRecord,
  RunStatus,
} from "./types.js";
import type { AgentWorkflowOptions } from "./workflow-options.js";

/**
 * The handlers clients call beside `run`: they read what the run keeps in its state and resolve
 * its durable promises; a call of a child run, named by chained id, is passed to the child's own.
 */

/** The state that names the agent tool a child run runs (by its path from the root's registry). */
export const AGENT_KEY = "agent tools";

/** Decides on a call of the run, or of a child (by chained id). */
export async function decideHandler(ctx: WorkflowSharedContext, input: DecideRequest, workflow: string): Promise<void> {
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

/** Answers a question of the run, or of a child (by chained id), once the answer fits its shape. */
export async function answerHandler(
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
  const checked = await checkAnswer(await registryOf(ctx, options), asked.tool, answer, asked.schema);
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

/** Cancels the run and the children it runs now. */
export async function cancelHandler(ctx: WorkflowSharedContext, input: CancelRequest | undefined, workflow: string) {
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

/** Where the run stands, with the calls that wait in its children by chained id. */
export async function statusHandler(ctx: WorkflowSharedContext, workflow: string): Promise<RunStatus> {
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
export function unknownStatus(runId: string): RunStatus {
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
