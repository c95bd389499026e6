import { escapeHtml } from "../html/escape.js";
import { REPORT_CSS } from "../html/report-style.js";
import { VIEW_STATUSES } from "../trace/run-status.js";
import { STUDIO_CSS } from "./studio-style.js";

/** The list page's script: it fetches the rows, filters them as the user types, and fetches them again on every change the server announces. */
const LIST_JS = `
(() => {
  const token = document.querySelector('meta[name="studio-token"]').content;
  const body = document.getElementById("runs");
  const filter = document.getElementById("filter");
  const status = document.getElementById("status");
  const esc = (t) => String(t).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const link = (id) => '<a href="/runs/' + encodeURIComponent(id) + '">' + esc(id) + "</a>";
  const secs = (ms) => (ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(1) + " s");
  let runs = [];
  function render() {
    const q = filter.value.toLowerCase();
    const s = status.value;
    const shown = runs.filter((r) => (s === "" || r.status === s) &&
      (q === "" || (r.runId + " " + r.task).toLowerCase().includes(q)));
    const forks = new Map();
    const called = new Map();
    const add = (map, key, id) => map.set(key, (map.get(key) || []).concat(id));
    for (const r of runs) {
      if (r.parent) add(forks, r.parent, r.runId);
      if (r.calledBy) add(called, r.calledBy.runId, r.runId);
    }
    const lineage = (r) => [
      r.parent ? "fork of " + link(r.parent) : "",
      r.calledBy ? "child of " + link(r.calledBy.runId) + " (call " + esc(r.calledBy.callId) + ")" : "",
      (forks.get(r.runId) || []).length ? "forks: " + forks.get(r.runId).map(link).join(", ") : "",
      (called.get(r.runId) || []).length ? "children: " + called.get(r.runId).map(link).join(", ") : "",
    ].filter((part) => part !== "").join(" · ");
    body.innerHTML = shown.map((r) => "<tr data-run=\\"" + esc(r.runId) + "\\">" +
      '<td><input type="checkbox" class="pick" value="' + esc(r.runId) + '" aria-label="pick for comparison"></td>' +
      "<td>" + link(r.runId) + "</td>" +
      '<td><span class="badge ' + esc(r.status) + '">' + esc(r.status) + "</span>" +
      (r.refused ? '<div class="reason">' + esc(r.refused) + "</div>" : "") + "</td>" +
      '<td class="task">' + esc(r.task) + "</td>" +
      '<td class="num">' + r.steps + '</td><td class="num">' + r.tokens + "</td>" +
      "<td>" + esc(r.startedAt.slice(0, 19).replace("T", " ")) + '</td><td class="num">' + secs(r.durationMs) + "</td>" +
      '<td class="lineage">' + lineage(r) + "</td></tr>").join("");
    document.getElementById("count").textContent = shown.length + " of " + runs.length + " runs";
  }
  let timer = null;
  async function load() {
    timer = null;
    runs = await (await fetch("/api/runs")).json();
    render();
    document.body.dataset.ready = "true";
  }
  filter.addEventListener("input", render);
  status.addEventListener("change", render);
  document.getElementById("compare").addEventListener("click", () => {
    const picked = [...document.querySelectorAll(".pick:checked")].map((box) => box.value);
    if (picked.length === 2) location.href = "/compare?a=" + encodeURIComponent(picked[0]) + "&b=" + encodeURIComponent(picked[1]);
  });
  const start = document.getElementById("start");
  if (start) start.addEventListener("submit", async (event) => {
    event.preventDefault();
    const task = document.getElementById("task").value;
    const res = await fetch("/api/runs", { method: "POST", headers: { "content-type": "application/json", "x-agentloop-token": token }, body: JSON.stringify({ task }) });
    const answer = await res.json();
    if (res.ok) location.href = "/runs/" + encodeURIComponent(answer.runId);
    else document.getElementById("failure").textContent = answer.error;
  });
  const source = new EventSource("/events");
  source.onmessage = () => { timer = timer || setTimeout(load, 100); };
  // The first load waits for the stream: nothing written in between is missed.
  source.onopen = () => { timer = timer || setTimeout(load, 0); };
})();
`;

/** The page that lists a store's runs: filterable, live, with a form to start a run when the studio has a model. */
/** The filter's statuses: every status a view names (`VIEW_STATUSES`). */
const STATUS_OPTIONS = VIEW_STATUSES.map((status) => `<option>${escapeHtml(status)}</option>`).join("");

export function renderListPage(storeLabel: string, token: string, canStart: boolean): string {
  const start = canStart
    ? `<form id="start"><input id="task" name="task" placeholder="a task for a new run" size="40" required><button type="submit">start a run</button></form><span class="failure" id="failure"></span>`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="studio-token" content="${escapeHtml(token)}">
<title>agentloop studio · ${escapeHtml(storeLabel)}</title>
<style>${REPORT_CSS}${STUDIO_CSS}</style>
</head>
<body>
<nav class="studio-bar"><strong>agentloop studio</strong><span>${escapeHtml(storeLabel)}</span>${start}<span class="live">live</span></nav>
<main class="studio-list">
<div class="tools"><input id="filter" type="search" placeholder="filter by run id or task" size="30" aria-label="filter">
<select id="status" aria-label="status"><option value="">any status</option>${STATUS_OPTIONS}</select>
<button type="button" id="compare">compare the two picked</button><span id="count"></span></div>
<table><thead><tr><th></th><th>run</th><th>status</th><th>task</th><th>steps</th><th>tokens</th><th>started (UTC)</th><th>duration</th><th>forks and children</th></tr></thead>
<tbody id="runs"></tbody></table>
</main>
<script>${LIST_JS}</script>
</body>
</html>
`;
}
