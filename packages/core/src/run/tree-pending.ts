import type { PendingQuestion, ToolCall } from "../data/index.js";
import { chainCallId } from "../data/index.js";
import { pendingApprovals, pendingQuestions } from "../decide/index.js";
import { type EventStore, type Replay, replayRun } from "../log/index.js";
import { childRunIdOf, treeListing } from "./child-calls.js";

/**
 * The calls a paused run's tree waits on: its own, then those of each child its log shows cut off
 * in a call (read from the child's own log, at any depth), with chained ids
 * (`<parent call id>/<child call id>`, see `chainCallId`). Reads logs only; runs nothing.
 */
export async function treePending(store: EventStore, runId: string, replay: Replay): Promise<ToolCall[]> {
  return treeListing(pendingApprovals(replay.context), await childrenPending(store, runId, replay));
}

/**
 * The questions a paused run's tree waits on: its own, then those of its children (read from their
 * logs, at any depth), with chained ids; what `resumeAgent`'s `answers` names. Reads logs only.
 */
export async function treeQuestions(store: EventStore, runId: string, replay: Replay): Promise<PendingQuestion[]> {
  return [...pendingQuestions(replay.context), ...(await childrenQuestions(store, runId, replay))];
}

/** The calls a paused run's children wait on, with ids chained under the run's calls. */
export function childrenPending(store: EventStore, runId: string, replay: Replay): Promise<ToolCall[]> {
  return childrenWaiting(store, runId, replay, (child) => pendingApprovals(child.context));
}

/** The questions a paused run's children wait on (read from their logs, at any depth), with ids chained under the run's calls. */
export function childrenQuestions(store: EventStore, runId: string, replay: Replay): Promise<PendingQuestion[]> {
  return childrenWaiting(store, runId, replay, (child) => pendingQuestions(child.context));
}

/**
 * What `own` lists for each child its log shows cut off in a call and still unfinished, and for
 * their children at any depth, with ids chained under the run's calls.
 */
async function childrenWaiting<T extends { readonly id: string }>(
  store: EventStore,
  runId: string,
  replay: Replay,
  own: (child: Replay) => readonly T[],
): Promise<T[]> {
  const waiting: T[] = [];
  for (const callId of replay.interrupted) {
    const childRunId = childRunIdOf(runId, callId);
    const events = await store.read(childRunId);
    const [started] = events;
    if (started?.type !== "run.started" || started.parent?.runId !== runId) continue;
    const child = replayRun(events, { runId: childRunId });
    if (child.result !== null) continue;
    for (const item of own(child)) waiting.push({ ...item, id: chainCallId(callId, item.id) });
    for (const item of await childrenWaiting(store, childRunId, child, own)) {
      waiting.push({ ...item, id: chainCallId(callId, item.id, true) });
    }
  }
  return waiting;
}
