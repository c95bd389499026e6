import type { StoredEvent } from "../core-api.js";
import type { Piece } from "../html/client/page-data.js";
import { formatUsd } from "../output/outcome.js";
import type { TraceEntry } from "./run-trace.js";

export type { Piece, Tone } from "../html/client/page-data.js";

/**
 * One event in words, whatever writes it: the terminal's timeline, the HTML report and the
 * studio's run page each render this, in text or in HTML.
 */
export interface EventDescription {
  /** The event's type: the column every timeline writes first. */
  readonly type: StoredEvent["type"];
  /** The event in a word or two, where a view names it without its type (the page's conversation). */
  readonly title: string;
  /** What is written beside the type, in pieces. */
  readonly summary: readonly Piece[];
}

/** What describing an event needs from the rest of its log. */
export interface DescriptionContext {
  /** The tool name of every call, by id (`callNames`). */
  readonly names: ReadonlyMap<string, string>;
  /** The agent that wrote each reply, by the reply's `seq`, in a run with handoffs (`replyAgents`). */
  readonly agents: ReadonlyMap<number, string>;
}

/** The description of one event of a trace. Every event type has its case: a new one fails to compile without it. */
export function describeEvent(entry: TraceEntry, context: DescriptionContext): EventDescription {
  const { event } = entry;
  const said = (title: string, ...summary: Piece[]): EventDescription => ({ type: event.type, title, summary });
  const call = (callId: string): Piece[] => {
    const name = context.names.get(callId);
    return name === undefined ? [["id", `[${callId}]`]] : [["name", name], " ", ["id", `[${callId}]`]];
  };
  switch (event.type) {
    case "run.started":
      return said("run started", ["aside", startedDetail(event)]);
    case "model.replied": {
      const usage = event.reply.usage;
      const used =
        usage === undefined
          ? "estimated"
          : `usage ${usage.inputTokens} in / ${usage.outputTokens} out${cacheNote(usage)}`;
      const agent = context.agents.get(event.seq);
      return said(
        `model · step ${entry.steps}`,
        ...(agent === undefined ? [] : [["name", agent] as const, " "]),
        ["aside", `step ${entry.steps} · `],
        ["count", `${entry.tokens} tokens`],
        ["aside", ` so far (${used})`],
      );
    }
    case "tool.started":
      return said("tool started", ["name", event.name], " ", ["id", `[${event.callId}]`]);
    case "tool.finished":
      return said("tool finished", ...call(event.callId));
    case "approval.decided":
      return said(
        "decision",
        event.approved ? ["good", "approved"] : ["bad", "denied"],
        " ",
        ...call(event.callId),
        event.reason === undefined ? "" : ` (${event.reason})`,
      );
    case "run.cancelled":
      return said("cancelled", ["warn", event.reason ?? "cancelled"]);
    case "run.finished":
      return said("finished", [
        "aside",
        `${entry.turn > 1 ? `turn ${entry.turn} ` : ""}${event.outcome.status} · steps ${event.outcome.steps} · tokens ${event.outcome.tokens}${overBudget(event.outcome)}${costNote(event.outcome)}`,
      ]);
    case "user.messaged":
      return said("you", ["note", `turn ${entry.turn}`]);
    case "context.compacted":
      return said("compacted", ["note", compactionDetail(event)]);
    case "model.failed":
      return said("model failed", ["bad", failedAttempt(event)]);
    case "retry.waited":
      return said("retry", ["note", "waited before the next attempt"]);
    case "output.checked":
      return event.valid
        ? said("output", ["good", "valid:"], " ", ["aside", JSON.stringify(event.value)])
        : said("output", ["bad", "invalid:"], ` ${event.problem}`);
    case "guardrail.checked":
      return said(
        "guardrail",
        `${event.stage} `,
        ["name", event.name],
        ": ",
        event.tripped ? ["bad", `tripped (${event.reason ?? ""})`] : ["good", "passed"],
      );
    case "step.prepared":
      return said("step prepared", ["aside", preparedDetail(event)]);
    case "question.answered":
      return said("answer", ["good", "answered"], " ", ...call(event.callId), ` ${JSON.stringify(event.answer)}`);
    case "tool.asked":
      return said("question", ["warn", "asked"], " ", ...call(event.callId), ` ${JSON.stringify(event.question)}`);
    case "tool.paused":
      return said("paused", ["warn", "paused"], " ", ...call(event.callId), ` ${pausedDetail(event)}`);
    case "tool.resumed":
      return said("resumed", ["good", "resumed"], " ", ...call(event.callId), ["aside", " · its child goes on"]);
    case "run.anchored":
      return said("pruned", ["aside", anchoredDetail(event)]);
    case "handoff":
      return said(
        "handoff",
        ["name", event.from],
        " → ",
        ["name", event.to],
        " ",
        ["id", `[${event.callId}]`],
        ["aside", handoffShown(event)],
      );
    case "tool.noted":
      return said("note", ...call(event.callId), ` ${JSON.stringify(event.note)}`);
    case "ceiling.reached":
      return said("ceiling", ["bad", ceilingDetail(event)]);
    case "memory.recalled":
      return said("memory recalled", ["note", recalledDetail(event)]);
    case "memory.written":
      return said("memory written", ...call(event.callId), ` ${writtenDetail(event)}`);
  }
}

/** The tool name of every call, by id, from the replies that asked for them. */
export function callNames(entries: readonly TraceEntry[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const { event } of entries) {
    if (event.type === "model.replied") for (const call of event.reply.toolCalls) names.set(call.id, call.name);
  }
  return names;
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

/** What a trace's descriptions need from its log: its calls' names and its replies' agents. */
export function descriptionContext(entries: readonly TraceEntry[]): DescriptionContext {
  return { names: callNames(entries), agents: replyAgents(entries) };
}

/** Where the run came from (a fork, a parent's call, or nowhere), and its log's schema. */
function startedDetail(event: Extract<StoredEvent, { type: "run.started" }>): string {
  const from = event.forkedFrom
    ? `forked from ${event.forkedFrom.runId} at #${event.forkedFrom.seq}`
    : event.parent
      ? `child of ${event.parent.runId} (call ${event.parent.callId})`
      : "started";
  return `${from} · log schema ${event.schemaVersion}`;
}

/** A recall in a line: whose memories, for what, and the keys found (the values are in the message that follows). */
function recalledDetail(event: Extract<StoredEvent, { type: "memory.recalled" }>): string {
  const found =
    event.hits.length === 0
      ? "nothing found"
      : `${event.hits.length} found: ${event.hits.map((hit) => hit.key).join(", ")}`;
  return `${scopeName(event.scope)} · ${JSON.stringify(event.query)} · ${found}`;
}

/** A memory write in a line: whose memory, its key and its value. */
function writtenDetail(event: Extract<StoredEvent, { type: "memory.written" }>): string {
  return `${scopeName(event.scope)} · ${event.key} = ${JSON.stringify(event.value)}`;
}

function scopeName(scope: Extract<StoredEvent, { type: "memory.written" }>["scope"]): string {
  return "resource" in scope ? `resource ${scope.resource}` : `thread ${scope.thread}`;
}

/** A spending ceiling's refusal of a model call, in a line: the window, what was spent of the limit, and the call's hold. */
function ceilingDetail(event: Extract<StoredEvent, { type: "ceiling.reached" }>): string {
  const usd = (amount: number) => `$${amount.toFixed(4)}`;
  return `the owner's ${event.window === "day" ? "daily" : "monthly"} ceiling of ${usd(event.limit)}: ${usd(event.spent)} spent, the call could cost ${usd(event.reserve)}, so it was not made`;
}

/** What a call paused in its child waits on, in a line: the chained ids of the decisions and the questions below it. */
function pausedDetail(event: Extract<StoredEvent, { type: "tool.paused" }>): string {
  const waits = [
    ...event.pending.map((call) => `${call.id} (decision)`),
    ...event.questions.map((question) => `${question.id} (question)`),
  ];
  return `paused in its child, which waits on ${waits.join(", ")}`;
}

/** What `prepareStep` decided for a step, in a line: the tools offered, the tool choice, the model, the system text. */
function preparedDetail(event: Extract<StoredEvent, { type: "step.prepared" }>): string {
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
function compactionDetail(event: Extract<StoredEvent, { type: "context.compacted" }>): string {
  const hidden = `step ${event.step} · messages before ${event.keptFrom} hidden`;
  if (event.summary === undefined) return `${hidden} (trim)`;
  const summary = event.summary.length > 60 ? `${event.summary.slice(0, 59)}…` : event.summary;
  return `${hidden} · summary ${JSON.stringify(summary)}`;
}

/** `, 800 cached, 60 written to the cache` when the provider read or wrote its prompt cache. */
function cacheNote(usage: { readonly cachedInputTokens?: number; readonly cacheWriteTokens?: number }): string {
  const cached = usage.cachedInputTokens === undefined ? "" : `, ${usage.cachedInputTokens} cached`;
  const written = usage.cacheWriteTokens === undefined ? "" : `, ${usage.cacheWriteTokens} written to the cache`;
  return `${cached}${written}`;
}

/** What retain dropped before `run.anchored`: the events, and how they ended. */
function anchoredDetail(event: Extract<StoredEvent, { type: "run.anchored" }>): string {
  const { status, steps, tokens } = event.outcome;
  return `pruned: ${event.events} events up to ${event.lastAt} (turn ${event.turns} ${status} · steps ${steps} · tokens ${tokens})`;
}

/** ` · cost $0.0123` for a priced run, with `($0.0342 over the budget)` when a provider billed more than the cost budget allowed for. */
function costNote(outcome: { readonly cost?: number; readonly costOverBudget?: number }): string {
  if (outcome.cost === undefined) return "";
  const over = outcome.costOverBudget === undefined ? "" : ` (${formatUsd(outcome.costOverBudget)} over the budget)`;
  return ` · cost ${formatUsd(outcome.cost)}${over}`;
}

/** `, 120 tokens over budget` when the provider counted more than the budget allowed for. */
function overBudget(outcome: { readonly tokensOverBudget?: number }): string {
  return outcome.tokensOverBudget === undefined ? "" : `, ${outcome.tokensOverBudget} over budget`;
}

/** What a handoff's filter left the target to see, in a few words (nothing without a filter). */
function handoffShown(event: Extract<StoredEvent, { type: "handoff" }>): string {
  return event.messages === undefined ? "" : ` · shown ${event.messages.length} messages of the conversation`;
}
