import { chainCallId, contentText, type PendingQuestion, type ToolCall, treeListing } from "../core-api.js";
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

/** How deep a tree is read: logs written by hand could name each other in a loop. */
const MAX_DEPTH = 32;

/** Every child run a run's log links (`tool.started` naming a child run), read from the same store at any depth. */
export async function childRunsOf(log: LogRef, trace: RunTrace, depth = 0): Promise<ChildRun[]> {
  const children: ChildRun[] = [];
  if (depth >= MAX_DEPTH) return children;
  for (const { event } of trace.entries) {
    if (event.type !== "tool.started" || event.childRunId === undefined) continue;
    children.push(await readChild(log, event.callId, event.name, event.childRunId, depth + 1));
  }
  return children;
}

/** The calls a run's tree waits on: its own, then each unfinished child's, with chained ids (as `resumeAgent` names them). */
export function treeWaiting(trace: RunTrace, children: readonly ChildRun[]): ToolCall[] {
  if (trace.result !== null) return [];
  return treeListing(
    trace.waiting,
    children.flatMap((child) => child.waiting),
  );
}

/** The questions a run's tree waits on: its own, then each unfinished child's, with chained ids (as `resumeAgent` takes answers). */
export function treeQuestions(trace: RunTrace, children: readonly ChildRun[]): PendingQuestion[] {
  if (trace.result !== null) return [];
  return [...trace.questions, ...children.flatMap((child) => child.questions)];
}

async function readChild(
  parent: LogRef,
  callId: string,
  name: string,
  runId: string,
  depth: number,
): Promise<ChildRun> {
  const label = logPathOf(parent.storePath, runId);
  const events = await parent.store.read(runId).catch(() => []);
  const [started] = events;
  const none = { task: "", answer: null, steps: 0, tokens: 0, waiting: [], questions: [], children: [] };
  if (started?.type !== "run.started" || started.parent?.runId !== parent.runId) {
    return { callId, name, runId, label, status: "missing", ...none };
  }
  let trace: RunTrace;
  try {
    trace = traceRun(events, runId);
  } catch {
    // A child's log that does not fit the machine is named, not a reason to refuse its parent.
    return { callId, name, runId, label, status: "refused", ...none };
  }
  const children = await childRunsOf({ ...parent, runId, label }, trace, depth);
  const own = trace.result === null ? trace.waiting : [];
  const waiting = [
    ...own.map((call) => ({ ...call, id: chainCallId(callId, call.id) })),
    ...children.flatMap((child) => child.waiting).map((call) => ({ ...call, id: chainCallId(callId, call.id, true) })),
  ];
  const questions = [
    ...(trace.result === null ? trace.questions : []).map((q) => ({ ...q, id: chainCallId(callId, q.id) })),
    ...children.flatMap((child) => child.questions).map((q) => ({ ...q, id: chainCallId(callId, q.id, true) })),
  ];
  const status = traceStatus(trace, waiting, questions);
  const { steps, tokens } = trace.result ?? trace;
  const answer = trace.result?.answer ?? null;
  const task = contentText(started.settings.task);
  return { callId, name, runId, label, task, answer, status, steps, tokens, waiting, questions, children };
}
