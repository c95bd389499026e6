import type { StoredEvent } from "@agentloop/core/store";
import { type Chart, stateName } from "../chart/statechart.js";
import type { Move, RunTrace, TraceEntry } from "../trace/run-trace.js";
import type { Palette } from "./colors.js";
import { formatMessage } from "./format-message.js";
import { formatOutcome, unfinishedNote } from "./outcome.js";

const INDENT = " ".repeat(18);

/** The run as a readable timeline: every logged event with the states it moved the machine through and the messages it added, then the outcome. */
export function formatTimeline(trace: RunTrace, colors: Palette, log: { runId: string; label: string }): string[] {
  const { settings } = trace;
  const budget = Number.isFinite(settings.tokenBudget) ? String(settings.tokenBudget) : "unlimited";
  const tools = settings.tools.map((tool) => tool.name).join(", ") || "none";
  const lines = [
    `${colors.bold(`run ${log.runId}`)}  ${colors.dim(log.label)}`,
    `${colors.dim("limits")}   ${settings.maxSteps} steps, ${budget} tokens   ${colors.dim("tools")} ${tools}`,
    "",
  ];
  const start = Date.parse(trace.entries[0]?.event.at ?? "");
  for (const entry of trace.entries) lines.push(...formatEntry(entry, trace.chart, colors, start));
  lines.push("");
  lines.push(
    ...(trace.result === null ? unfinishedNote(trace, colors, log.label) : formatOutcome(trace.result, colors)),
  );
  return lines;
}

function formatEntry(entry: TraceEntry, chart: Chart, colors: Palette, start: number): string[] {
  const { event } = entry;
  const offset = `+${Math.max(0, Date.parse(event.at) - start)}ms`.padEnd(9);
  const head = `${colors.dim(offset)}${colors.dim(`#${event.seq}`.padEnd(5))}`;
  const lines = [`${head}${colors.bold(event.type.padEnd(17))}${describeEvent(event, entry, colors)}`];
  for (const message of entry.messages) lines.push(`${INDENT}${formatMessage(message, colors)}`);
  if (entry.moves.length > 0)
    lines.push(`${INDENT}${colors.dim("state")}     ${formatMoves(entry.moves, chart, colors)}`);
  return lines;
}

function describeEvent(event: StoredEvent, entry: TraceEntry, colors: Palette): string {
  switch (event.type) {
    case "run.started":
      return colors.dim(event.forkedFrom ? `forked from ${event.forkedFrom.runId} at #${event.forkedFrom.seq}` : "");
    case "model.replied": {
      const usage = event.reply.usage;
      const used = usage === undefined ? "estimated" : `usage ${usage.inputTokens} in / ${usage.outputTokens} out`;
      return colors.dim(`step ${entry.steps} · ${entry.tokens} tokens so far (${used})`);
    }
    case "tool.started":
      return `${colors.cyan(event.name)} ${colors.dim(`[${event.callId}]`)}`;
    case "tool.finished":
      return colors.dim(`[${event.callId}]`);
    case "approval.decided": {
      const reason = event.reason === undefined ? "" : ` (${event.reason})`;
      const verdict = event.approved ? colors.green("approved") : colors.red("denied");
      return `${verdict} ${colors.dim(`[${event.callId}]`)}${reason}`;
    }
    case "run.cancelled":
      return colors.yellow(event.reason ?? "cancelled");
    case "run.finished":
      return colors.dim(`${event.outcome.status} · steps ${event.outcome.steps} · tokens ${event.outcome.tokens}`);
    case "user.messaged":
      return event.content;
  }
}

/** `budgetCheck → callingModel`, with the guard that chose each eventless move. */
export function formatMoves(moves: readonly Move[], chart: Chart, colors: Palette): string {
  return moves
    .map((move, index) => {
      const edges = move.edges.map((id) => chart.edges.find((edge) => edge.id === id));
      const guard = edges.map((edge) => (edge?.guard ? colors.dim(` [${edge.guard}]`) : "")).join("");
      const name = colors.yellow(stateName(chart, move.state));
      if (edges.some((edge) => edge !== undefined && edge.target === null)) {
        const actions = edges.flatMap((edge) => edge?.actions ?? []).join(", ");
        return `↺ ${name}${guard}${colors.dim(` / ${actions}`)}`;
      }
      return index === 0 && move.edges.length === 0 ? name : `→ ${name}${guard}`;
    })
    .join(" ");
}
