import { type Html, html } from "./html.js";
import type { ChildData } from "./page-data.js";

/**
 * The child runs of a run's agent tool calls, as a tree under their calls: in the studio each is
 * a link to its page; in the offline report each names the command that writes its report.
 */
export function childRunsHtml(children: readonly ChildData[]): Html {
  if (children.length === 0) return html``;
  return html`<section class="children-section" id="children">
<h2>Child runs <span class="count">${children.length}</span></h2>
${childList(children)}
</section>`;
}

function childList(children: readonly ChildData[]): Html {
  return html`<ul class="children">${children.map((child) => html`<li>${childHtml(child)}</li>`)}</ul>`;
}

function childHtml(child: ChildData): Html {
  const status = html`<span class="status-${child.status}">${`${child.status} · ${child.steps} steps · ${child.tokens} tokens`}</span>`;
  const name =
    child.command === null
      ? html`<a href="/runs/${encodeURIComponent(child.runId)}">${child.runId}</a>`
      : html`<code>${child.runId}</code>`;
  const summary = html`call <code>${child.callId}</code> (${child.name}) → child run ${name} ${status}`;
  const body = html`<p><strong>Task</strong> ${child.task}</p><p><strong>Answer</strong> ${child.answer ?? "(none)"}</p>${
    child.command === null ? null : html`<p><strong>Its report</strong> <code>${child.command}</code></p>`
  }${child.children.length === 0 ? null : childList(child.children)}`;
  return html`<details class="child"><summary>${summary}</summary>${body}</details>`;
}
