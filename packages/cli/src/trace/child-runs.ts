import { contentText, type PendingQuestion, readTree, startedOf, type ToolCall, type TreeChild } from "../core-api.js";
import { logPathOf } from "../setup/run-ids.js";
import type { LogRef } from "../setup/stores.js";
import { traceStatus } from "./run-status.js";
import { type RunTrace, traceRun } from "./run-trace.js";

/** A child run an agent tool call started, as its own log tells it, with its own children and what its tree waits on. */
export interface ChildRun extends ChildRuns {
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
}

/**
 * A run's child runs, and the calls and questions its tree waits on, with ids chained under the
 * parent's call (`<call id>/<child call id>`, see `chainCallId`), as `resumeAgent` names them.
 */
export interface ChildRuns {
  readonly children: readonly ChildRun[];
  readonly waiting: readonly ToolCall[];
  readonly questions: readonly PendingQuestion[];
}

/** Every child run a run's log links (`tool.started` naming a child run), read by core's tree reader at any depth. */
export async function childRunsOf(log: LogRef, trace: RunTrace): Promise<ChildRuns> {
  const events = trace.entries.map((entry) => entry.event);
  const tree = await readTree(log.store, log.runId, { fold: traceRun, events, root: trace });
  const children = tree.children.map((child) => childRun(log.storePath, child));
  return { children, waiting: tree.treeWaiting, questions: tree.treeQuestions };
}

/** A run read without its children (a run with none, as `demo` makes): what it waits on is its own, until it ends. */
export function withoutChildren(trace: RunTrace): ChildRuns {
  const open = trace.result === null;
  return { children: [], waiting: open ? trace.waiting : [], questions: open ? trace.questions : [] };
}

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
