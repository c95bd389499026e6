import { type Chart, stateName } from "../chart/statechart.js";
import { logFlags, type StoredEvent, startedOf } from "../core-api.js";
import type { Io } from "../io.js";
import { type ChildRun, type ChildRuns, withoutChildren } from "../trace/child-runs.js";
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
  const names = callNames(trace.entries);
  const agents = replyAgents(trace.entries);
  const childLines = new Map(children.map((child) => [child.callId, `${INDENT}${childLine(child, colors, io)}`]));
  trace.entries.forEach((entry, index) => {
    lines.push(...formatNotes(trace.notes.get(index), colors));
    const [head = "", ...rest] = formatEntry(entry, trace.chart, colors, start, names, agents);
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

/** In a run with handoffs, the agent that wrote each reply, by the reply's `seq` (empty for any other run). */
export function replyAgents(entries: readonly TraceEntry[]): Map<number, string> {
  const agents = new Map<number, string>();
  const [first] = entries;
  let agent = first?.event.type === "run.started" ? first.event.settings.handoffs?.agent : undefined;
  if (agent === undefined) return agents;
  for (const { event } of entries) {
    if (event.type === "handoff") agent = event.to;
    if (event.type === "model.replied") agents.set(event.seq, agent);
  }
  return agents;
}

/** The tool name of every call, by id, from the replies that asked for them. */
export function callNames(entries: readonly TraceEntry[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const { event } of entries) {
    if (event.type === "model.replied") for (const call of event.reply.toolCalls) names.set(call.id, call.name);
  }
  return names;
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
  names: ReadonlyMap<string, string>,
  agents: ReadonlyMap<number, string>,
): string[] {
  const { event } = entry;
  const offset = `+${formatDuration(offsetOf(event.at, start))}`.padEnd(TIME_WIDTH - 1);
  const head = `${colors.dim(offset)} ${colors.dim(`#${event.seq}`.padEnd(6))}`;
  const lines = [
    `${head}${colors.bold(event.type.padEnd(EVENT_WIDTH))}${describeEvent(event, entry, colors, names, agents)}`,
  ];
  for (const message of entry.messages) lines.push(`${INDENT}${formatMessage(message, colors)}`);
  if (entry.moves.length > 0)
    lines.push(`${INDENT}${colors.dim("state")}     ${formatMoves(entry.moves, chart, colors)}`);
  return lines;
}

function describeEvent(
  event: StoredEvent,
  entry: TraceEntry,
  colors: Palette,
  names: ReadonlyMap<string, string>,
  agents: ReadonlyMap<number, string>,
): string {
  switch (event.type) {
    case "run.started":
      return colors.dim(event.forkedFrom ? `forked from ${event.forkedFrom.runId} at #${event.forkedFrom.seq}` : "");
    case "model.replied": {
      const usage = event.reply.usage;
      const used =
        usage === undefined
          ? "estimated"
          : `usage ${usage.inputTokens} in / ${usage.outputTokens} out${cacheNote(usage)}`;
      const agent = agents.get(event.seq);
      const by = agent === undefined ? "" : `${colors.cyan(agent)} `;
      return `${by}${colors.dim(`step ${entry.steps} · ${entry.tokens} tokens so far (${used})`)}`;
    }
    case "tool.started":
      return `${colors.cyan(event.name)} ${colors.dim(`[${event.callId}]`)}`;
    case "tool.finished":
      return `${colors.cyan(names.get(event.callId) ?? "")} ${colors.dim(`[${event.callId}]`)}`.trim();
    case "approval.decided": {
      const reason = event.reason === undefined ? "" : ` (${event.reason})`;
      const verdict = event.approved ? colors.green("approved") : colors.red("denied");
      return `${verdict} ${colors.cyan(names.get(event.callId) ?? "")} ${colors.dim(`[${event.callId}]`)}${reason}`;
    }
    case "run.cancelled":
      return colors.yellow(event.reason ?? "cancelled");
    case "run.finished":
      return colors.dim(
        `${entry.turn > 1 ? `turn ${entry.turn} ` : ""}${event.outcome.status} · steps ${event.outcome.steps} · tokens ${event.outcome.tokens}${overBudget(event.outcome)}${costNote(event.outcome)}`,
      );
    case "user.messaged":
      return colors.dim(`turn ${entry.turn}`);
    case "context.compacted":
      return colors.dim(compactionDetail(event));
    case "model.failed":
      return colors.red(failedAttempt(event));
    case "retry.waited":
      return colors.dim("next attempt");
    case "output.checked":
      return event.valid
        ? `${colors.green("valid")} ${colors.dim(JSON.stringify(event.value))}`
        : `${colors.red("invalid")} ${event.problem}`;
    case "guardrail.checked": {
      const verdict = event.tripped ? colors.red(`tripped: ${event.reason ?? ""}`) : colors.green("passed");
      return `${event.stage} ${colors.cyan(event.name)} ${verdict}`;
    }
    case "step.prepared":
      return colors.dim(preparedDetail(event));
    case "question.answered":
      return `${colors.green("answered")} ${colors.cyan(names.get(event.callId) ?? "")} ${colors.dim(`[${event.callId}]`)} ${JSON.stringify(event.answer)}`;
    case "tool.asked":
      return `${colors.yellow("asked")} ${colors.cyan(names.get(event.callId) ?? "")} ${colors.dim(`[${event.callId}]`)} ${JSON.stringify(event.question)}`;
    case "tool.paused":
      return `${colors.yellow("paused")} ${colors.cyan(names.get(event.callId) ?? "")} ${colors.dim(`[${event.callId}]`)} ${pausedDetail(event)}`;
    case "tool.resumed":
      return `${colors.green("resumed")} ${colors.cyan(names.get(event.callId) ?? "")} ${colors.dim(`[${event.callId}]`)}`;
    case "run.anchored":
      return colors.dim(anchoredDetail(event));
    case "handoff":
      return `${colors.cyan(event.from)} → ${colors.cyan(event.to)} ${colors.dim(`[${event.callId}]${handoffShown(event)}`)}`;
    case "tool.noted":
      return `${colors.cyan(names.get(event.callId) ?? "")} ${colors.dim(`[${event.callId}]`)} ${JSON.stringify(event.note)}`;
    case "ceiling.reached":
      return colors.red(ceilingDetail(event));
    case "memory.recalled":
      return `${colors.dim(recalledDetail(event))}`;
    case "memory.written":
      return `${colors.cyan(names.get(event.callId) ?? "")} ${colors.dim(`[${event.callId}]`)} ${writtenDetail(event)}`;
  }
}

/** A recall in a line: whose memories, for what, and the keys found (the values are in the message that follows). */
export function recalledDetail(event: Extract<StoredEvent, { type: "memory.recalled" }>): string {
  const found =
    event.hits.length === 0
      ? "nothing found"
      : `${event.hits.length} found: ${event.hits.map((hit) => hit.key).join(", ")}`;
  return `${scopeName(event.scope)} · ${JSON.stringify(event.query)} · ${found}`;
}

/** A memory write in a line: whose memory, its key and its value. */
export function writtenDetail(event: Extract<StoredEvent, { type: "memory.written" }>): string {
  return `${scopeName(event.scope)} · ${event.key} = ${JSON.stringify(event.value)}`;
}

function scopeName(scope: Extract<StoredEvent, { type: "memory.written" }>["scope"]): string {
  return "resource" in scope ? `resource ${scope.resource}` : `thread ${scope.thread}`;
}

/** A spending ceiling's refusal of a model call, in a line: the window, what was spent of the limit, and the call's hold. */
export function ceilingDetail(event: Extract<StoredEvent, { type: "ceiling.reached" }>): string {
  const usd = (amount: number) => `$${amount.toFixed(4)}`;
  return `the owner's ${event.window === "day" ? "daily" : "monthly"} ceiling of ${usd(event.limit)}: ${usd(event.spent)} spent, the call could cost ${usd(event.reserve)}, so it was not made`;
}

/** What a call paused in its child waits on, in a line: the chained ids of the decisions and the questions below it. */
export function pausedDetail(event: Extract<StoredEvent, { type: "tool.paused" }>): string {
  const waits = [
    ...event.pending.map((call) => `${call.id} (decision)`),
    ...event.questions.map((question) => `${question.id} (question)`),
  ];
  return `paused in its child, which waits on ${waits.join(", ")}`;
}

/** What `prepareStep` decided for a step, in a line: the tools offered, the tool choice, the model, the system text. */
export function preparedDetail(event: Extract<StoredEvent, { type: "step.prepared" }>): string {
  const parts = [`step ${event.step}`];
  if (event.activeTools !== undefined) parts.push(`tools [${event.activeTools.join(", ")}]`);
  if (event.toolChoice !== undefined) {
    parts.push(`tool choice ${typeof event.toolChoice === "string" ? event.toolChoice : event.toolChoice.name}`);
  }
  if (event.model !== undefined) parts.push(`model ${event.model} (reserve ${event.reserve ?? 0})`);
  if (event.system !== undefined) {
    parts.push(`system + ${JSON.stringify(event.system.length > 60 ? `${event.system.slice(0, 59)}…` : event.system)}`);
  }
  return parts.length === 1 ? `${parts[0]} · as the run was set` : parts.join(" · ");
}

/** A failed model attempt in one line: which model, whether it is tried again, the provider's wait, the error. */
export function failedAttempt(event: {
  readonly model: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly error: string;
}): string {
  const after = event.retryAfterMs === undefined ? "" : `, retry-after ${event.retryAfterMs} ms`;
  return `model ${event.model} · ${event.retryable ? "retryable" : "not retryable"}${after} · ${event.error}`;
}

/** What a compaction did, in a line: the step it was for, where the hidden messages end, and the summary's start. */
export function compactionDetail(event: Extract<StoredEvent, { type: "context.compacted" }>): string {
  const hidden = `step ${event.step} · messages before ${event.keptFrom} hidden`;
  if (event.summary === undefined) return `${hidden} (trim)`;
  const summary = event.summary.length > 60 ? `${event.summary.slice(0, 59)}…` : event.summary;
  return `${hidden} · summary ${JSON.stringify(summary)}`;
}

/** `, $0.50` for a run with a cost budget, `, priced` for one priced without a budget. */
function costLimit(settings: { readonly costBudget?: number; readonly prices?: unknown }): string {
  if (settings.costBudget !== undefined) return `, ${formatUsd(settings.costBudget)}`;
  return settings.prices === undefined ? "" : ", priced";
}

/** `, 800 cached, 60 written to the cache` when the provider read or wrote its prompt cache. */
export function cacheNote(usage: { readonly cachedInputTokens?: number; readonly cacheWriteTokens?: number }): string {
  const cached = usage.cachedInputTokens === undefined ? "" : `, ${usage.cachedInputTokens} cached`;
  const written = usage.cacheWriteTokens === undefined ? "" : `, ${usage.cacheWriteTokens} written to the cache`;
  return `${cached}${written}`;
}

/** ` · cost $0.0123` for a priced run, with `($0.0342 over the budget)` when a provider billed more than the cost budget allowed for. */
/** What the timeline and the report write beside `run.anchored`: the events retain dropped, and how they ended. */
export function anchoredDetail(event: Extract<StoredEvent, { type: "run.anchored" }>): string {
  const { status, steps, tokens } = event.outcome;
  return `pruned: ${event.events} events up to ${event.lastAt} (turn ${event.turns} ${status} · steps ${steps} · tokens ${tokens})`;
}

export function costNote(outcome: { readonly cost?: number; readonly costOverBudget?: number }): string {
  if (outcome.cost === undefined) return "";
  const over = outcome.costOverBudget === undefined ? "" : ` (${formatUsd(outcome.costOverBudget)} over the budget)`;
  return ` · cost ${formatUsd(outcome.cost)}${over}`;
}

/** `, 120 tokens over budget` when the provider counted more than the budget allowed for. */
export function overBudget(outcome: { readonly tokensOverBudget?: number }): string {
  return outcome.tokensOverBudget === undefined ? "" : `, ${outcome.tokensOverBudget} over budget`;
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

/** What a handoff's filter left the target to see, in a few words (nothing without a filter). */
export function handoffShown(event: Extract<StoredEvent, { type: "handoff" }>): string {
  return event.messages === undefined ? "" : ` · shown ${event.messages.length} messages of the conversation`;
}
