import { escapeCallId, type PendingQuestion, type ToolCall, unescapeCallId } from "@agentloop/core";
import type { WorkflowSharedContext } from "@restatedev/restate-sdk";
import type { KeptStatus } from "./run-log.js";
import type { AnswerRequest, CancelRequest, DecideRequest } from "./types.js";

/**
 * A run's children are runs of the same workflow: what a parent's `decide`, `answer`, `cancel` and
 * `status` ask of them. A call of a child is named from the parent by its chained id, `<call id>/
 * <child call id>` (each call id escaped, see `escapeCallId`), at any depth.
 */

/** The calls that wait in a run and its children, every id chained relative to the run (its own calls' escaped). */
export interface TreeWaiting {
  readonly calls: readonly ToolCall[];
  readonly questions: readonly PendingQuestion[];
}

/** The handlers a parent calls on its children's workflows. */
export type ChildRunHandlers = {
  decide(ctx: WorkflowSharedContext, request: DecideRequest): Promise<void>;
  answer(ctx: WorkflowSharedContext, request: AnswerRequest): Promise<void>;
  cancel(ctx: WorkflowSharedContext, request?: CancelRequest): Promise<void>;
  /** The calls that wait in the run's tree (`TreeWaiting`). */
  waiting(ctx: WorkflowSharedContext): Promise<TreeWaiting>;
};

/** Where a chained id leads: the child run its first call runs, and the id of the call relative to that child. */
export interface ChildRoute {
  readonly childRunId: string;
  /** The child's own call id (unescaped), or a chained id of one of its children's calls. */
  readonly callId: string;
}

/** The child a chained id names a call of, when that child runs now; null for any other id. */
export function routeOf(status: KeptStatus | null, callId: string): ChildRoute | null {
  const slash = callId.indexOf("/");
  const runs = status?.childRuns;
  if (slash < 0 || runs === undefined) return null;
  const parentCall = unescapeCallId(callId.slice(0, slash));
  const childRunId = Object.hasOwn(runs, parentCall) ? runs[parentCall] : undefined;
  if (childRunId === undefined) return null;
  const rest = callId.slice(slash + 1);
  return { childRunId, callId: rest.includes("/") ? rest : unescapeCallId(rest) };
}

/** The handlers of the child run a route leads to. */
export function childRun(ctx: WorkflowSharedContext, workflow: string, childRunId: string) {
  return ctx.workflowClient<ChildRunHandlers>({ name: workflow }, childRunId);
}

/** The calls that wait in the children running now, by chained id relative to the run. */
export async function childrenWaiting(
  ctx: WorkflowSharedContext,
  workflow: string,
  status: KeptStatus | null,
): Promise<TreeWaiting> {
  const runs = Object.entries(status?.childRuns ?? {});
  if (runs.length === 0) return { calls: [], questions: [] };
  const trees = await Promise.all(runs.map(([, childRunId]) => childRun(ctx, workflow, childRunId).waiting()));
  const calls: ToolCall[] = [];
  const questions: PendingQuestion[] = [];
  for (const [index, tree] of trees.entries()) {
    const prefix = escapeCallId((runs[index] as [string, string])[0]);
    for (const call of tree.calls) calls.push({ ...call, id: `${prefix}/${call.id}` });
    for (const question of tree.questions) questions.push({ ...question, id: `${prefix}/${question.id}` });
  }
  return { calls, questions };
}

/** The calls that wait in a run's tree, relative to it: its own (escaped), then its children's. */
export async function treeWaiting(
  ctx: WorkflowSharedContext,
  workflow: string,
  status: KeptStatus | null,
): Promise<TreeWaiting> {
  const chained = await childrenWaiting(ctx, workflow, status);
  const own = status?.awaitingDecision ?? [];
  const asked = status?.pendingQuestions ?? [];
  return {
    calls: [...own.map((call) => ({ ...call, id: escapeCallId(call.id) })), ...chained.calls],
    questions: [...asked.map((question) => ({ ...question, id: escapeCallId(question.id) })), ...chained.questions],
  };
}

/**
 * A run's own waiting calls by their ids and its children's by chained id, as `runAgent`'s tree
 * lists them: an own id that is also a chained one is listed escaped, so that no two share an id.
 */
export function listed<T extends { readonly id: string }>(own: readonly T[], chained: readonly T[]): T[] {
  const taken = new Set(chained.map((each) => each.id));
  return [...own.map((each) => (taken.has(each.id) ? { ...each, id: escapeCallId(each.id) } : each)), ...chained];
}
