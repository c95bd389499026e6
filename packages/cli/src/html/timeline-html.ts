import type { Message } from "@agentloop/core";
import type { StoredEvent } from "@agentloop/core/store";
import { stateName } from "../chart/statechart.js";
import { isErrorObservation } from "../output/format-message.js";
import type { RunTrace, TraceEntry } from "../trace/run-trace.js";
import { escapeHtml } from "./escape.js";

/** The timeline as an HTML list: one item per logged event, with its moves and messages; each item names the states and edges it touched. */
export function renderTimeline(trace: RunTrace): string {
  const start = Date.parse(trace.entries[0]?.event.at ?? "");
  const items = trace.entries.map((entry, index) => entryHtml(trace, entry, index, start));
  return `<ol class="timeline">\n${items.join("\n")}\n</ol>`;
}

function entryHtml(trace: RunTrace, entry: TraceEntry, index: number, start: number): string {
  const { event } = entry;
  const states = entry.moves.flatMap((move) => move.entered);
  const edges = entry.moves.flatMap((move) => move.edges);
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
    `<li class="${classes}" data-index="${index}" data-states="${escapeHtml(states.join(" "))}" data-edges="${escapeHtml(edges.join(" "))}">`,
    `<div class="head"><span class="time">+${Math.max(0, Date.parse(event.at) - start)}ms</span><span class="seq">#${event.seq}</span>`,
    `<span class="type">${escapeHtml(event.type)}</span><span class="detail">${eventDetail(event, entry)}</span></div>`,
    entry.messages.map(messageHtml).join(""),
    moves.length === 0 ? "" : `<div class="moves">${moves.join(" ")}</div>`,
    "</li>",
  ].join("");
}

function eventDetail(event: StoredEvent, entry: TraceEntry): string {
  switch (event.type) {
    case "run.started":
      return escapeHtml(event.forkedFrom ? `forked from ${event.forkedFrom.runId} at #${event.forkedFrom.seq}` : "");
    case "model.replied": {
      const usage = event.reply.usage;
      const used = usage === undefined ? "estimated" : `usage ${usage.inputTokens} in / ${usage.outputTokens} out`;
      return `step ${entry.steps} · <span class="tokens">${entry.tokens} tokens</span> so far (${used})`;
    }
    case "tool.started":
      return `<span class="tool-name">${escapeHtml(event.name)}</span> [${escapeHtml(event.callId)}]`;
    case "tool.finished":
      return `[${escapeHtml(event.callId)}]`;
    case "approval.decided": {
      const verdict = event.approved ? '<span class="approved">approved</span>' : '<span class="denied">denied</span>';
      return `${verdict} [${escapeHtml(event.callId)}]${event.reason ? ` (${escapeHtml(event.reason)})` : ""}`;
    }
    case "run.cancelled":
      return `<span class="cancelled">${escapeHtml(event.reason ?? "cancelled")}</span>`;
    case "run.finished":
      return escapeHtml(`${event.outcome.status} · steps ${event.outcome.steps} · tokens ${event.outcome.tokens}`);
    case "user.messaged":
      return escapeHtml(event.content);
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
  }
}
