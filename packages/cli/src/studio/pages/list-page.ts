import { html } from "../../html/client/html.js";
import { pageOf } from "../../html/report.js";
import { REPORT_CSS } from "../../html/report-style.js";
import { VIEW_STATUSES } from "../../trace/run-status.js";
import { STUDIO_SCRIPTS, scriptAddress } from "./studio-scripts.js";
import { STUDIO_CSS } from "./studio-style.js";

/** The page that lists a store's runs: filterable, live, with a form to start a run when the studio has a model. */
export function renderListPage(storeLabel: string, token: string, canStart: boolean, hasEvals: boolean): string {
  const start = canStart
    ? html`<form id="start"><input id="task" name="task" placeholder="a task for a new run" aria-label="a task for a new run" size="40" required><button type="submit">start a run</button></form><span class="failure" id="failure"></span>`
    : null;
  // The filter's statuses: every status a view names (`VIEW_STATUSES`).
  const statuses = VIEW_STATUSES.map((status) => html`<option>${status}</option>`);
  return pageOf({
    title: `agentloop studio · ${storeLabel}`,
    style: REPORT_CSS + STUDIO_CSS,
    head: html`<meta name="studio-token" content="${token}">\n`,
    body: html`<nav class="studio-bar"><strong>agentloop studio</strong><span>${storeLabel}</span>${
      hasEvals ? html`<a href="/evals">evals</a>` : null
    }${start}<span class="live">live</span></nav>
<main class="studio-list">
<div class="tools"><input id="filter" type="search" placeholder="filter by run id or task" size="30" aria-label="filter">
<select id="status" aria-label="status"><option value="">any status</option>${statuses}</select>
<button type="button" id="compare">compare the two picked</button><span id="count"></span></div>
<div class="table-scroll"><table id="runs-table"><thead><tr><th></th><th>run</th><th>status</th><th>task</th><th>steps</th><th>tokens</th><th class="cost">cost</th><th>started (UTC)</th><th>duration</th><th>forks and children</th></tr></thead>
<tbody id="runs"></tbody></table></div>
<button type="button" id="more" hidden>show older runs</button>
</main>`,
    script: { src: scriptAddress(STUDIO_SCRIPTS.list) },
  });
}
