import { UsageError } from "../cli-error.js";
import { type Decisions, escapeCallId, type ToolCall } from "../core-api.js";

/**
 * Refuses decisions for calls that do not wait for one, naming the calls that do: a decision for
 * an id the run has no pending call with would otherwise be dropped without a word. A chained id
 * (`<call id>/<child call id>`) under a call the log shows cut off is left to the resume, which
 * checks it against that call's child run.
 */
export function checkDecisions(
  undecided: readonly ToolCall[],
  decisions: Decisions,
  running: readonly ToolCall[] = [],
): void {
  const ids = new Set(undecided.map((call) => call.id));
  const children = running.map((call) => `${escapeCallId(call.id)}/`);
  const stray = Object.keys(decisions).filter((id) => !ids.has(id) && !children.some((at) => id.startsWith(at)));
  if (stray.length === 0) return;
  const list = stray.map((id) => `'${id}'`).join(", ");
  const waiting =
    undecided.length === 0
      ? "no call of this run waits for a decision"
      : `the calls that wait: ${undecided.map((call) => `${call.id} (${call.name})`).join(", ")}`;
  throw new UsageError(
    `${stray.length === 1 ? "call" : "calls"} ${list} ${stray.length === 1 ? "does" : "do"} not wait for a decision; ${waiting}`,
  );
}
