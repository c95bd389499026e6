import { contentText } from "../../core-api.js";
import { type Html, html } from "../../html/client/html.js";
import { pageOf } from "../../html/report.js";
import { REPORT_CSS } from "../../html/report-style.js";
import { traceStatus } from "../../trace/run-status.js";
import type { RunTrace, TraceEntry } from "../../trace/run-trace.js";
import { STUDIO_CSS } from "./studio-style.js";

/** What an event did, for comparing two runs: its type and the messages it added (times and ids aside). */
function keyOf(entry: TraceEntry): string {
  const { event } = entry;
  const decision = event.type === "approval.decided" ? String(event.approved) : "";
  const messages = event.type === "run.started" ? [] : entry.messages;
  return `${event.type} ${decision} ${JSON.stringify(messages)}`;
}

/** The position of the first event where two runs differ, or `null` when one is a prefix of the other and as long. */
export function divergenceOf(a: RunTrace, b: RunTrace): number | null {
  const length = Math.min(a.entries.length, b.entries.length);
  for (let at = 0; at < length; at++) {
    const left = a.entries[at];
    const right = b.entries[at];
    if (left === undefined || right === undefined || keyOf(left) !== keyOf(right)) return at;
  }
  return a.entries.length === b.entries.length ? null : length;
}

function lineOf(entry: TraceEntry): Html {
  const message = entry.messages.at(-1);
  const text = message === undefined ? "" : contentText(message.content).slice(0, 160);
  const calls = message?.role === "assistant" ? message.toolCalls.map((call) => call.name).join(", ") : "";
  return html`<strong>${entry.event.type}</strong> ${text}${calls ? html` <em>${calls}</em>` : null}`;
}

function column(runId: string, trace: RunTrace, at: number | null): Html {
  const items = trace.entries.map((entry, index) => {
    const kind = at === null || index < at ? "same" : index === at ? "diverges" : "after";
    return html`<li class="${kind}" data-seq="${index}">#${index} ${lineOf(entry)}</li>`;
  });
  const status = traceStatus(trace);
  return html`<section><h2><a href="/runs/${encodeURIComponent(runId)}">${runId}</a> · ${status} · ${trace.steps} steps · ${trace.tokens} tokens</h2><ol>${items}</ol></section>`;
}

/** Two runs side by side, event by event, with the first event where they differ marked. */
export function renderComparePage(ids: readonly [string, string], traces: readonly [RunTrace, RunTrace]): string {
  const at = divergenceOf(traces[0], traces[1]);
  const summary =
    at === null
      ? "The two runs did the same, event for event."
      : `The runs agree on their first ${at} events and diverge at event #${at}.`;
  return pageOf({
    title: `agentloop studio · ${ids[0]} vs ${ids[1]}`,
    style: REPORT_CSS + STUDIO_CSS,
    bodyAttributes: html` data-ready="true"`,
    body: html`<nav class="studio-bar"><a href="/">all runs</a><strong>comparison</strong></nav>
<main class="compare"><p class="summary" id="divergence" data-at="${at ?? ""}">${summary}</p>
${column(ids[0], traces[0], at)}
${column(ids[1], traces[1], at)}
</main>`,
    script: "",
  });
}
