import type { StoredEvent } from "../core-api.js";
import type { RunTrace } from "../trace/run-trace.js";
import { type Html, html } from "./client/html.js";

type MemoryEvent = Extract<StoredEvent, { type: "memory.recalled" | "memory.written" }>;

/**
 * The run's Memory panel: every recall (whose memories, for which message, each hit's key and
 * value, best first) and every memory a tool wrote, by position in the log; nothing for a run
 * without memory. The values are what the model was shown, as the log holds them.
 */
export function memoryPanelHtml(trace: RunTrace): Html {
  const found = trace.entries.flatMap(({ event }) =>
    event.type === "memory.recalled" || event.type === "memory.written" ? [event] : [],
  );
  if (found.length === 0) return html``;
  return html`<section class="memory-section" id="memory">
<h2>Memory <span class="count">${found.length}</span></h2>
<ol class="memory">${found.map((event) => html`<li>${memoryLine(event)}</li>`)}</ol>
</section>`;
}

function memoryLine(event: MemoryEvent): Html {
  const where = html`<span class="seq">#${event.seq}</span> <span class="scope">${scopeName(event.scope)}</span>`;
  if (event.type === "memory.written") {
    return html`${where} <span class="tool-name">remembered</span> [${event.callId}] <code>${event.key}</code> ${event.value}`;
  }
  const hits =
    event.hits.length === 0
      ? html`<p>nothing found</p>`
      : html`<ul>${event.hits.map((hit) => html`<li><code>${hit.key}</code> ${hit.value}</li>`)}</ul>`;
  return html`${where} recalled for <q>${event.query}</q>${hits}`;
}

function scopeName(scope: MemoryEvent["scope"]): string {
  return "resource" in scope ? `resource ${scope.resource}` : `thread ${scope.thread}`;
}
