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

/** The calls a paused run's children wait on, with ids chained under the run's calls. */
export async function childrenPending(store: EventStore, runId: string, replay: Replay): Promise<ToolCall[]> {
  const waiting: ToolCall[] = [];
  for (const callId of replay.interrupted) {
    const childRunId = childRunIdOf(runId, callId);
    const events = await store.read(childRunId);
    const [started] = events;
    if (started?.type !== "run.started" || started.parent?.runId !== runId) continue;
    const child = replayRun(events, { runId: childRunId });
    if (child.result !== null) continue;
    for (const call of pendingApprovals(child.context)) waiting.push({ ...call, id: chainCallId(callId, call.id) });
    for (const call of await childrenPending(store, childRunId, child)) {
      waiting.push({ ...call, id: chainCallId(callId, call.id, true) });
    }
  }
  return waiting;
}

/** The questions a paused run's children wait on (read from their logs, at any depth), with ids chained under the run's calls. */
export async function childrenQuestions(store: EventStore, runId: string, replay: Replay): Promise<PendingQuestion[]> {
  const waiting: PendingQuestion[] = [];
  for (const callId of replay.interrupted) {
    const childRunId = childRunIdOf(runId, callId);
    const events = await store.read(childRunId);
    const [started] = events;
    if (started?.type !== "run.started" || started.parent?.runId !== runId) continue;
    const child = replayRun(events, { runId: childRunId });
    if (child.result !== null) continue;
    for (const question of pendingQuestions(child.context)) {
      waiting.push({ ...question, id: chainCallId(callId, question.id) });
    }
    for (const question of await childrenQuestions(store, childRunId, child)) {
      waiting.push({ ...question, id: chainCallId(callId, question.id, true) });
    }
  }
  return waiting;
}
