import type { ToolCall } from "../core-api.js";
import { type StudioContext, watchedRun } from "./studio-context.js";

/** How deep a tree of agent tool runs is followed (a store's logs may name each other in a loop). */
const MAX_DEPTH = 32;

/**
 * The calls a run's tree waits on for a decision: its own, then each unfinished child's, with ids
 * chained under the parent's call (`r1/e1`), as `resumeAgent` takes them from the tree's root.
 */
export function treeWaitsOf(context: StudioContext, runId: string, depth = 0): ToolCall[] {
  const run = watchedRun(context, runId);
  const trace = run === undefined || run.refused !== null ? null : run.trace();
  if (trace === null || trace.result !== null) return [];
  const waits = [...trace.waiting];
  if (depth >= MAX_DEPTH) return waits;
  for (const { event } of trace.entries) {
    if (event.type !== "tool.started" || event.childRunId === undefined) continue;
    for (const call of treeWaitsOf(context, event.childRunId, depth + 1)) {
      waits.push({ ...call, id: `${event.callId}/${call.id}` });
    }
  }
  return waits;
}
