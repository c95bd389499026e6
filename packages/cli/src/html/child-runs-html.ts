import type { ChildRun } from "../trace/child-runs.js";
import { escapeHtml } from "./escape.js";

/** The child runs of a run's agent tool calls, each under its call and expandable to its task, answer and own children. */
export function childRunsHtml(children: readonly ChildRun[], program = "agentloop"): string {
  if (children.length === 0) return "";
  return `<section class="children-section">
<h2>Child runs <span class="count">${children.length}</span></h2>
${childList(children, program)}
</section>`;
}

function childList(children: readonly ChildRun[], program: string): string {
  return `<ul class="children">${children.map((child) => `<li>${childHtml(child, program)}</li>`).join("")}</ul>`;
}

function childHtml(child: ChildRun, program: string): string {
  const status = `<span class="status-${escapeHtml(child.status)}">${escapeHtml(`${child.status} · ${child.steps} steps · ${child.tokens} tokens`)}</span>`;
  const summary = `call <code>${escapeHtml(child.callId)}</code> (${escapeHtml(child.name)}) → child run <code>${escapeHtml(child.runId)}</code> ${status}`;
  const body = [
    `<p><strong>Task</strong> ${escapeHtml(child.task)}</p>`,
    `<p><strong>Answer</strong> ${escapeHtml(child.answer ?? "(none)")}</p>`,
    `<p><strong>Its report</strong> <code>${escapeHtml(`${program} show ${child.label} --html ${child.runId}.html`)}</code></p>`,
    child.children.length === 0 ? "" : childList(child.children, program),
  ].join("");
  return `<details class="child"><summary>${summary}</summary>${body}</details>`;
}
