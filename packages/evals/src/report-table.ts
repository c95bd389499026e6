import type { EvalReport } from "./types.js";

/** The report as a plain-text table: a row per case (pass, id, each scorer's score, run id), then the totals and the comparison. */
export function reportTable(report: EvalReport): string[] {
  const scorers = [...new Set(report.cases.flatMap((c) => Object.keys(c.scores)))];
  const header = ["", "case", ...scorers, "run"];
  const rows = report.cases.map((c) => [
    c.passed ? "pass" : c.error === undefined ? "FAIL" : "ERROR",
    c.id,
    ...scorers.map((name) => (c.scores[name] === undefined ? "-" : formatScore(c.scores[name]))),
    c.runId,
  ]);
  const widths = header.map((cell, index) => Math.max(cell.length, ...rows.map((row) => (row[index] ?? "").length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join("  ")
      .trimEnd();
  const lines = [line(header), ...rows.map(line)];
  for (const c of report.cases) if (c.error !== undefined) lines.push(`error in ${c.id}: ${c.error}`);
  lines.push(`${report.name}: ${report.passed} passed, ${report.failed} failed, ${report.tokens} tokens`);
  if (report.interrupted)
    lines.push(`interrupted: ${report.notRun} of ${report.cases.length + report.notRun} cases not run`);
  if (report.regressions.length > 0) lines.push(`regressed: ${report.regressions.join(", ")}`);
  if (report.improvements.length > 0) lines.push(`improved: ${report.improvements.join(", ")}`);
  const other = report.changed.filter((id) => !report.regressions.includes(id) && !report.improvements.includes(id));
  if (other.length > 0) lines.push(`changed: ${other.join(", ")}`);
  return lines;
}

/** A score with at most 2 decimals. */
export function formatScore(score: number | undefined): string {
  return score === undefined ? "-" : String(Math.round(score * 100) / 100);
}
