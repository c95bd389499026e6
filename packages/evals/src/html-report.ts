import { formatScore } from "./report-table.js";
import type { EvalReport } from "./types.js";

function escapeHtml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * The report as one self-contained HTML page: a table of cases × scorers, each case's run one
 * click away (`runLink(runId)`, by default the command that shows it), its error, and the
 * comparison with the baseline.
 */
export function htmlReport(report: EvalReport, runLink: (runId: string) => string = (runId) => `#${runId}`): string {
  const scorers = [...new Set(report.cases.flatMap((c) => Object.keys(c.scores)))];
  const mark = (id: string): string =>
    report.regressions.includes(id) ? " regressed" : report.improvements.includes(id) ? " improved" : "";
  const rows = report.cases.map((c) => {
    const cells = scorers.map((name) => `<td>${formatScore(c.scores[name])}</td>`).join("");
    const state = c.passed ? "pass" : c.error === undefined ? "fail" : "error";
    const error = c.error === undefined ? "" : `<div class="error">${escapeHtml(c.error)}</div>`;
    return `<tr class="${state}${mark(c.id)}"><td>${state}${mark(c.id)}</td><td>${escapeHtml(c.id)}${error}</td>${cells}<td><a href="${escapeHtml(runLink(c.runId))}">${escapeHtml(c.runId)}</a></td></tr>`;
  });
  const summary = `${report.passed} passed, ${report.failed} failed, ${report.tokens} tokens${report.interrupted ? `, interrupted: ${report.notRun} cases not run` : ""}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(report.name)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}
.pass td:first-child{color:#080}.fail td:first-child,.error td:first-child,.regressed td:first-child{color:#b00}.error div{color:#b00;font-size:12px}</style>
</head><body>
<h1>${escapeHtml(report.name)}</h1>
<p id="summary">${escapeHtml(summary)}</p>
<table><thead><tr><th></th><th>case</th>${scorers.map((name) => `<th>${escapeHtml(name)}</th>`).join("")}<th>run</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table>
</body></html>
`;
}
