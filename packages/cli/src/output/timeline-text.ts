import { type Chart, stateName } from "../chart/statechart.js";
import { logFlags, startedOf } from "../core-api.js";
import type { Io } from "../io.js";
import { type ChildRun, type ChildRuns, withoutChildren } from "../trace/child-runs.js";
import {
  type DescriptionContext,
  describeEvent,
  descriptionContext,
  type Piece,
  type Tone,
} from "../trace/event-description.js";
import { endNotes, type Note } from "../trace/notes.js";
import type { Move, RunTrace, TraceEntry } from "../trace/run-trace.js";
import type { Palette } from "./colors.js";
import { formatDuration, offsetOf } from "./duration.js";
import { formatMessage } from "./format-message.js";
import { commandLine } from "./hints.js";
import { formatOutcome, formatUsd, unfinishedNote } from "./outcome.js";

const TIME_WIDTH = 9;
const INDENT = " ".repeat(TIME_WIDTH + 7);
// The longest event type (guardrail.checked, context.compacted) and one space before what follows.
const EVENT_WIDTH = 18;

/**
 * The run as a readable timeline: every logged event with the states it moved the machine
 * through and the messages it added, pauses and interruptions between them, then the outcome.
 * The time column is the offset from the run's start; it never runs into the sequence number.
 * Each child run an agent tool call started is named under that call's `tool.started`.
 */
export function formatTimeline(
  trace: RunTrace,
  colors: Palette,
  log: { runId: string; label: string },
  io: Io,
  tree: ChildRuns = withoutChildren(trace),
): string[] {
  const { children, waiting } = tree;
  const { settings } = trace;
  const budget = Number.isFinite(settings.tokenBudget) ? String(settings.tokenBudget) : "unlimited";
  const tools = settings.tools.map((tool) => tool.name).join(", ") || "none";
  const turns = trace.turns > 1 ? `   ${colors.dim("turns")} ${trace.turns}` : "";
  const first = trace.entries[0]?.event;
  const schema = first === undefined ? 1 : (startedOf([first])?.schemaVersion ?? 1);
  const sealed = logFlags(schema).hashChain ? "every event's hash checked" : "no hashes: written before logs had them";
  const lines = [
    `${colors.bold(`run ${log.runId}`)}  ${colors.dim(log.label)}`,
    `${colors.dim("log")}      schema ${schema} · ${trace.entries.length} events · ${sealed}`,
    `${colors.dim("limits")}   ${settings.maxSteps} steps, ${budget} tokens${costLimit(settings)}${trace.turns > 1 ? " a turn" : ""}   ${colors.dim("tools")} ${tools}${turns}`,
    "",
  ];
  const start = Date.parse(trace.entries[0]?.event.at ?? "");
  const context = descriptionContext(trace.entries);
  const childLines = new Map(children.map((child) => [child.callId, `${INDENT}${childLine(child, colors, io)}`]));
  trace.entries.forEach((entry, index) => {
    lines.push(...formatNotes(trace.notes.get(index), colors));
    const [head = "", ...rest] = formatEntry(entry, trace.chart, colors, start, context);
    const { event } = entry;
    const child = event.type === "tool.started" ? childLines.get(event.callId) : undefined;
    lines.push(head, ...(child === undefined ? [] : [child]), ...rest);
  });
  lines.push(...formatNotes(endNotes(trace.notes.get(trace.entries.length), waiting), colors));
  lines.push("");
  lines.push(
    ...(trace.result === null
      ? unfinishedNote(trace, colors, io, { log: log.label }, waiting)
      : formatOutcome(trace.result, colors)),
  );
  return lines;
}

/** A child run in a line: its id, how it stands, its steps and tokens, and the command that shows it. */
export function childLine(child: ChildRun, colors: Palette, io: Io): string {
  const status = child.status === "done" ? colors.green(child.status) : colors.yellow(child.status);
  const show = commandLine(io, ["show", child.label]);
  return `${colors.dim("child")}     ${child.runId} · ${status} · steps ${child.steps} · tokens ${child.tokens} · show: ${show}`;
}

function formatNotes(notes: readonly Note[] | undefined, colors: Palette): string[] {
  return (notes ?? []).map((note) =>
    note.kind === "turn" || note.kind === "compacted"
      ? `${colors.bold(`── ${note.text} `)}${colors.dim("─".repeat(8))}`
      : `${" ".repeat(TIME_WIDTH)}${colors.yellow(`⏸ ${note.text}`)}`,
  );
}

function formatEntry(
  entry: TraceEntry,
  chart: Chart,
  colors: Palette,
  start: number,
  context: DescriptionContext,
): string[] {
  const { event } = entry;
  const offset = `+${formatDuration(offsetOf(event.at, start))}`.padEnd(TIME_WIDTH - 1);
  const head = `${colors.dim(offset)} ${colors.dim(`#${event.seq}`.padEnd(6))}`;
  const lines = [
    `${head}${colors.bold(event.type.padEnd(EVENT_WIDTH))}${piecesText(describeEvent(entry, context).summary, colors)}`,
  ];
  for (const message of entry.messages) lines.push(`${INDENT}${formatMessage(message, colors)}`);
  if (entry.moves.length > 0)
    lines.push(`${INDENT}${colors.dim("state")}     ${formatMoves(entry.moves, chart, colors)}`);
  return lines;
}

/** A description's pieces in the terminal: each tone its colour, plain text as it is. */
function piecesText(summary: readonly Piece[], colors: Palette): string {
  return summary.map((piece) => (typeof piece === "string" ? piece : colors[TONE_COLORS[piece[0]]](piece[1]))).join("");
}

const TONE_COLORS: Readonly<Record<Tone, keyof Palette>> = {
  name: "cyan",
  id: "dim",
  good: "green",
  bad: "red",
  warn: "yellow",
  note: "dim",
  count: "dim",
  aside: "dim",
};

/** `, $0.50` for a run with a cost budget, `, priced` for one priced without a budget. */
function costLimit(settings: { readonly costBudget?: number; readonly prices?: unknown }): string {
  if (settings.costBudget !== undefined) return `, ${formatUsd(settings.costBudget)}`;
  return settings.prices === undefined ? "" : ", priced";
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
