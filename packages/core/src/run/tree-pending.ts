import type { ToolCall } from "../data/index.js";
import { pendingApprovals } from "../decide/index.js";
import { type EventStore, type Replay, replayRun } from "../log/index.js";
import { chainedCall, childRunIdOf } from "./child-calls.js";

/**
 * The calls a paused run's tree waits on: its own, then those of each child its log shows cut off
 * in a call (read from the child's own log, at any depth), with chained ids
 * (`<parent call id>/<child call id>`). Reads logs only; runs nothing.
 */
export async function treePending(store: EventStore, runId: string, replay: Replay): Promise<ToolCall[]> {
  const waiting = pendingApprovals(replay.context);
  for (const callId of replay.interrupted) {
    const childRunId = childRunIdOf(runId, callId);
    const events = await store.read(childRunId);
    const [started] = events;
    if (started?.type !== "run.started" || started.parent?.runId !== runId) continue;
    const child = replayRun(events, { runId: childRunId });
    if (child.result !== null) continue;
    for (const call of await treePending(store, childRunId, child)) waiting.push(chainedCall(callId, call));
  }
  return waiting;
}
