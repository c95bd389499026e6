import {
  childCallsOf,
  contentText,
  type PendingQuestion,
  readChildren,
  startedOf,
  type ToolCall,
  type TreeChild,
  treeQuestionsOf,
  treeWaitingOf,
} from "../core-api.js";
import { logPathOf } from "../setup/run-ids.js";
import type { LogRef } from "../setup/stores.js";
import { traceStatus } from "./run-status.js";
import { type RunTrace, traceRun } from "./run-trace.js";

/** A child run an agent tool call started, as its own log tells it. */
export interface ChildRun {
  /** The parent's call that ran it. */
  readonly callId: string;
  /** The agent tool's name. */
  readonly name: string;
  readonly runId: string;
  /** The task it was given, and its answer (`null` while it has none). */
  readonly task: string;
  readonly answer: string | null;
  /** How to name its log on the command line. */
  readonly label: string;
  /** How it ended, `awaiting_approval` while a call of its tree waits, else `unfinished` (`missing` with no log, `refused` with one that does not fit). */
  readonly status: string;
  readonly steps: number;
  readonly tokens: number;
  /** The calls its tree waits on, with ids chained under the parent's call (`<call id>/<child call id>`, see `chainCallId`). */
  readonly waiting: readonly ToolCall[];
  /** The questions its tree waits on an answer for, with ids chained the same way. */
  readonly questions: readonly PendingQuestion[];
  /** Its own children, by the same rules. */
  readonly children: readonly ChildRun[];
}

/** Every child run a run's log links (`tool.started` naming a child run), read by core's tree reader at any depth. */
export async function childRunsOf(log: LogRef, trace: RunTrace): Promise<ChildRun[]> {
  const calls = childCallsOf(trace.entries.map((entry) => entry.event));
  const children = await readChildren(log.store, log.runId, calls, (events, runId) => traceRun(events, runId));
  return children.map((child) => childRun(log.storePath, child));
}

/** The calls a run's tree waits on: its own, then each unfinished child's, with chained ids (as `resumeAgent` names them). */
export const treeWaiting = (trace: RunTrace, children: readonly ChildRun[]): ToolCall[] =>
  treeWaitingOf(trace, children);

/** The questions a run's tree waits on: its own, then each unfinished child's, with chained ids (as `resumeAgent` takes answers). */
export const treeQuestions = (trace: RunTrace, children: readonly ChildRun[]): PendingQuestion[] =>
  treeQuestionsOf(trace, children);

/** A child as the views show it, from the tree reader's child. */
function childRun(storePath: LogRef["storePath"], child: TreeChild<RunTrace>): ChildRun {
  const { callId, name, runId, run, waiting, questions } = child;
  const label = logPathOf(storePath, runId);
  if (run === "missing" || run === "refused") {
    return { callId, name, runId, label, status: run, task: "", answer: null, steps: 0, tokens: 0, ...NONE };
  }
  const started = startedOf(child.events);
  const task = started === undefined ? "" : contentText(started.settings.task);
  const { steps, tokens } = run.result ?? run;
  const status = traceStatus(run, waiting, questions);
  const answer = run.result?.answer ?? null;
  const children = child.children.map((grandchild) => childRun(storePath, grandchild));
  return { callId, name, runId, label, task, answer, status, steps, tokens, waiting, questions, children };
}

const NONE = { waiting: [], questions: [], children: [] } as const;
