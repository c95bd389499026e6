import { stateName } from "../chart/statechart.js";
import type { Message, StoredEvent } from "../core-api.js";
import { formatDuration, offsetOf } from "../output/duration.js";
import { isErrorObservation } from "../output/format-message.js";
import { callNames } from "../output/timeline-text.js";
import type { Note } from "../trace/notes.js";
import type { RunTrace, TraceEntry } from "../trace/run-trace.js";
import { escapeHtml } from "./escape.js";

/** One timeline entry as the report's script shows it: its HTML, and the states and transitions it touched. */
export interface TimelineItem {
  /** The entry's `<li>`, after the notes that come before it. */
  readonly html: string;
  readonly states: readonly string[];
  readonly edges: readonly string[];
  /** Where the run is after the entry (a chart node id). */
  readonly state: string;
  /** `#seq type`, for the slider's label. */
  readonly label: string;
}

/** Every entry of the trace, with the notes before it; the end's notes come last, as an item with no entry. */
export function timelineItems(trace: RunTrace): TimelineItem[] {
  const start = Date.parse(trace.entries[0]?.event.at ?? "");
  const names = callNames(trace.entries);
  return trace.entries.map((entry, index) => {
    const states = entry.moves.flatMap((move) => move.entered).filter((id) => id !== trace.chart.id);
    const edges = entry.moves.flatMap((move) => move.edges);
    const notes = notesHtml(trace.notes.get(index));
    const offset = formatDuration(offsetOf(entry.event.at, start));
    return {
      html: notes + entryHtml(trace, entry, index, offset, names),
      states,
      edges,
      state: entry.state,
      label: `#${entry.event.seq} ${entry.event.type} · +${offset} · ${stateName(trace.chart, entry.state)}`,
    };
  });
}

/** The notes after the last entry (a run that waits, or a log that ends early). */
export function endNotesHtml(trace: RunTrace): string {
  return notesHtml(trace.notes.get(trace.entries.length));
}

function notesHtml(notes: readonly Note[] | undefined): string {
  return (notes ?? []).map((note) => `<li class="note ${note.kind}">${escapeHtml(note.text)}</li>`).join("");
}

function entryHtml(
  trace: RunTrace,
  entry: TraceEntry,
  index: number,
  offset: string,
  names: ReadonlyMap<string, string>,
): string {
  const { event } = entry;
  const error = entry.messages.some((message) => message.role === "tool" && isErrorObservation(message.content));
  const classes = ["entry", `type-${event.type.replace(".", "-")}`, error ? "has-error" : ""].filter(Boolean).join(" ");
  const moves = entry.moves.map((move) => {
    const label = stateName(trace.chart, move.state);
    const edge = move.edges.map((id) => trace.chart.edges.find((e) => e.id === id)).find(Boolean);
    const guard = edge?.guard ? ` <span class="guard">[${escapeHtml(edge.guard)}]</span>` : "";
    const loop = edge !== undefined && edge.target === null ? "↺ " : move.edges.length === 0 ? "" : "→ ";
    return `<span class="move">${loop}<span class="state-name">${escapeHtml(label)}</span>${guard}</span>`;
  });
  return [
    `<li class="${classes}" data-index="${index}">`,
    `<div class="head"><span class="time">+${offset}</span><span class="seq">#${event.seq}</span>`,
    `<span class="type">${escapeHtml(event.type)}</span><span class="detail">${eventDetail(event, entry, names)}</span></div>`,
    entry.messages.map(messageHtml).join(""),
    moves.length === 0 ? "" : `<div class="moves">${moves.join(" ")}</div>`,
    "</li>",
  ].join("");
}

function eventDetail(event: StoredEvent, entry: TraceEntry, names: ReadonlyMap<string, string>): string {
  const tool = (callId: string) =>
    `<span class="tool-name">${escapeHtml(names.get(callId) ?? "")}</span> [${escapeHtml(callId)}]`;
  switch (event.type) {
    case "run.started":
      return escapeHtml(event.forkedFrom ? `forked from ${event.forkedFrom.runId} at #${event.forkedFrom.seq}` : "");
    case "model.replied": {
      const usage = event.reply.usage;
      const used = usage === undefined ? "estimated" : `usage ${usage.inputTokens} in / ${usage.outputTokens} out`;
      return `step ${entry.steps} · <span class="tokens">${entry.tokens} tokens</span> so far (${used})`;
    }
    case "tool.started":
    case "tool.finished":
      return tool(event.callId);
    case "approval.decided": {
      const verdict = event.approved ? '<span class="approved">approved</span>' : '<span class="denied">denied</span>';
      return `${verdict} ${tool(event.callId)}${event.reason ? ` (${escapeHtml(event.reason)})` : ""}`;
    }
    case "run.cancelled":
      return `<span class="cancelled">${escapeHtml(event.reason ?? "cancelled")}</span>`;
    case "run.finished":
      return escapeHtml(`${event.outcome.status} · steps ${event.outcome.steps} · tokens ${event.outcome.tokens}`);
    default:
      return "";
  }
}

function messageHtml(message: Message): string {
  const role = `<span class="role">${message.role}</span>`;
  switch (message.role) {
    case "system":
    case "user":
      return `<div class="msg ${message.role}">${role}<span class="text">${escapeHtml(message.content)}</span></div>`;
    case "assistant": {
      const calls = message.toolCalls.map(
        (call) =>
          `<span class="call"><span class="tool-name">${escapeHtml(call.name)}</span>(${escapeHtml(call.rawArgs ?? JSON.stringify(call.args))}) <span class="call-id">[${escapeHtml(call.id)}]</span></span>`,
      );
      const text = message.content === "" ? "" : `<span class="text">${escapeHtml(message.content)}</span>`;
      return `<div class="msg assistant">${role}${text}${calls.join("")}</div>`;
    }
    case "tool": {
      const error = isErrorObservation(message.content) ? " error" : "";
      return `<div class="msg tool${error}">${role}<span class="call-id">[${escapeHtml(message.toolCallId)}]</span> <span class="tool-name">${escapeHtml(message.name)}</span> = <span class="text">${escapeHtml(message.content)}</span></div>`;
    }
    default:
      return "";
  }
}
