import { type Html, html } from "../../html/client/html.js";
import { pageOf } from "../../html/report.js";
import { REPORT_CSS } from "../../html/report-style.js";
import type { EvalFile, EvalReportData } from "../server/eval-reports.js";
import { STUDIO_CSS } from "./studio-style.js";

/** A page of the studio's eval pages: under the studio's bar, or (`bar` false: a file of its own) without it. */
const page = (title: string, body: Html, bar = true): string =>
  pageOf({
    title: bar ? `agentloop studio · ${title}` : title,
    style: REPORT_CSS + STUDIO_CSS,
    bodyAttributes: html` data-ready="true"`,
    body: html`${
      bar
        ? html`<nav class="studio-bar"><a href="/">all runs</a><a href="/evals">evals</a><strong>${title}</strong></nav>
`
        : null
    }<main class="studio-list evals">${body}</main>`,
    script: "",
  });

/** A run's address in the studio. */
const studioRun = (runId: string): string => `/runs/${encodeURIComponent(runId)}`;
const runLink = (runId: string): Html => html`<a href="${studioRun(runId)}">${runId}</a>`;
const reportLink = (file: string, text: string): Html => html`<a href="/evals/${encodeURIComponent(file)}">${text}</a>`;
const score = (value: number | undefined): string => (value === undefined ? "–" : value.toFixed(2));
const scorersOf = (...reports: EvalReportData[]): string[] => [
  ...new Set(reports.flatMap((report) => report.cases.flatMap((c) => Object.keys(c.scores)))),
];

/** The eval reports of the studio's `--evals` directory, newest first, with a form to compare two. */
export function renderEvalList(files: readonly EvalFile[]): string {
  // Newest first: the comparison starts from the newest report after the one before it, never one against itself.
  const options = (picked: number) =>
    files.map(
      (file, index) =>
        html`<option value="${file.file}"${index === Math.min(picked, files.length - 1) ? html` selected` : null}>${file.file}</option>`,
    );
  const rows = files.map(
    ({ file, report }) =>
      html`<tr data-report="${file}"><td>${reportLink(file, file)}</td><td>${report.name}</td><td class="num">${report.passed}</td><td class="num">${report.failed}</td><td class="num">${report.cases.length}</td><td class="num">${report.tokens}</td></tr>`,
  );
  return page(
    "evals",
    html`<form class="tools" action="/evals/compare" method="get"><label>before <select name="a" aria-label="before">${options(1)}</select></label>
<label>after <select name="b" aria-label="after">${options(0)}</select></label><button type="submit">compare</button></form>
<div class="table-scroll"><table id="reports"><thead><tr><th>report</th><th>name</th><th>passed</th><th>failed</th><th>cases</th><th>tokens</th></tr></thead><tbody>${rows}</tbody></table></div>`,
  );
}

/** One eval report: cases × scorers, each case one click from its run. */
export function renderEvalReport({ file, report }: EvalFile): string {
  return page(report.name, evalReportBody(report, studioRun, reportLink(file, file)));
}

/**
 * An eval report as a page of its own (`agentloop eval --html`): the studio's page of the report,
 * without the studio's bar, each case's run at `runHref(runId)` (its log, beside the page).
 */
export function evalReportFile(report: EvalReportData, runHref: (runId: string) => string): string {
  return page(
    report.name,
    html`<h1>${report.name}</h1>
${evalReportBody(report, runHref, null)}`,
    false,
  );
}

/** The report's summary and its table of cases × scorers, with what regressed or improved against the baseline. */
function evalReportBody(report: EvalReportData, runHref: (runId: string) => string, from: Html | null): Html {
  const scorers = scorersOf(report);
  const mark = (id: string): "regressed" | "improved" | null =>
    report.regressions?.includes(id) ? "regressed" : report.improvements?.includes(id) ? "improved" : null;
  const rows = report.cases.map((c) => {
    const result = c.passed ? "passed" : c.error === undefined ? "failed" : "error";
    const moved = mark(c.id);
    return html`<tr data-case="${c.id}" class="${c.passed ? "pass" : "fail"}${moved === null ? "" : ` ${moved}`}"><td>${c.id}</td><td><a href="${runHref(c.runId)}">${c.runId}</a></td><td><span class="badge ${c.passed ? "done" : "model_failed"}">${result}</span>${
      moved === null ? null : html` <span class="badge ${moved}">${moved}</span>`
    }</td>${scorers.map(
      (name) => html`<td class="num">${score(c.scores[name])}</td>`,
    )}<td>${c.status ?? ""}</td><td class="task">${c.error ?? c.answer ?? ""}</td></tr>`;
  });
  const interrupted = report.interrupted ? `, interrupted: ${report.notRun ?? 0} cases not run` : "";
  return html`<p class="summary" id="eval-summary">${from === null ? null : html`${from}: `}${report.passed} passed, ${report.failed} failed of ${report.cases.length} cases · ${report.tokens} tokens${interrupted}</p>
<div class="table-scroll"><table id="cases"><thead><tr><th>case</th><th>run</th><th>result</th>${scorers.map((name) => html`<th>${name}</th>`)}<th>status</th><th>answer or error</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** Two reports side by side, case by case: what regressed (passed before and fails now, or a score fell) and what improved. */
export function renderEvalCompare(before: EvalFile, after: EvalFile): string {
  const scorers = scorersOf(before.report, after.report);
  const then = new Map(before.report.cases.map((c) => [c.id, c]));
  let regressed = 0;
  let improved = 0;
  const rows = after.report.cases.map((now) => {
    const old = then.get(now.id);
    const fell = old !== undefined && scorers.some((name) => (now.scores[name] ?? 0) < (old.scores[name] ?? 0));
    const rose = old !== undefined && scorers.some((name) => (now.scores[name] ?? 0) > (old.scores[name] ?? 0));
    const kind =
      old === undefined
        ? "new"
        : (old.passed && !now.passed) || fell
          ? "regressed"
          : (!old.passed && now.passed) || rose
            ? "improved"
            : "same";
    if (kind === "regressed") regressed++;
    if (kind === "improved") improved++;
    const cells = scorers.map((name) => {
      const a = old?.scores[name];
      const b = now.scores[name];
      const moved = a !== undefined && b !== undefined && a !== b;
      return html`<td class="num${moved ? (b < a ? " fell" : " rose") : ""}">${score(a)} → ${score(b)}</td>`;
    });
    return html`<tr data-case="${now.id}" class="${kind}"><td>${now.id}</td><td><span class="badge ${kind}">${kind}</span></td><td>${
      old === undefined ? "–" : runLink(old.runId)
    }</td><td>${runLink(now.runId)}</td>${cells}</tr>`;
  });
  return page(
    `${before.file} vs ${after.file}`,
    html`<p class="summary" id="eval-compare-summary">From ${reportLink(before.file, before.file)} to ${reportLink(after.file, after.file)}: ${regressed} regressed, ${improved} improved, of ${after.report.cases.length} cases.</p>
<div class="table-scroll"><table id="compare-cases"><thead><tr><th>case</th><th>change</th><th>run before</th><th>run after</th>${scorers.map((name) => html`<th>${name}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`,
  );
}
