import { type AgentResult, outcomeOf, type RunOutcome, type StoredEvent, type ToolCall } from "../core-api.js";

/**
 * Why a `tool.started` does not fit, as core's replay words it: its call is not running, was
 * started already, or is another tool's; `null` when it fits.
 */
export function startProblem(
  running: readonly ToolCall[],
  event: Extract<StoredEvent, { type: "tool.started" }>,
  started: ReadonlyMap<string, string>,
): string | null {
  const call = running.find((waiting) => waiting.id === event.callId);
  if (call === undefined || started.has(event.callId)) {
    return `is for call '${event.callId}', which is not waiting to run`;
  }
  return call.name === event.name ? null : `names the tool '${event.name}', but call '${call.id}' is to '${call.name}'`;
}

/** Why a logged outcome differs from the one the events lead to (values compared, not key order), or `null`. */
export function outcomeProblem(logged: RunOutcome, result: AgentResult, schemaVersion: number): string | null {
  const expected = outcomeOf(result, schemaVersion);
  const fields = new Set([...Object.keys(logged), ...Object.keys(expected)]) as Set<keyof RunOutcome>;
  for (const field of fields) {
    if (logged[field] !== expected[field]) {
      return `records ${JSON.stringify(logged)}, but the events lead to ${JSON.stringify(expected)}`;
    }
  }
  return null;
}
