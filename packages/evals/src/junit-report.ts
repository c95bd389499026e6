import type { EvalReport } from "./types.js";

function escapeXml(text: string): string {
  return text
    .replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`)
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD]/g, "");
}

/**
 * The report as JUnit XML for CI systems: one test suite, a test case per eval case (a failure
 * with its scores, an error with its message), and a test case per regression against the baseline.
 */
export function junitReport(report: EvalReport): string {
  const name = escapeXml(report.name);
  const tests = report.cases.length + report.regressions.length;
  const failures = report.cases.filter((c) => !c.passed && c.error === undefined).length + report.regressions.length;
  const errors = report.cases.filter((c) => c.error !== undefined).length;
  const seconds = (ms: number | undefined): string => ((ms ?? 0) / 1000).toFixed(3);
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${name}" tests="${tests}" failures="${failures}" errors="${errors}">`,
    `  <testsuite name="${name}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${report.notRun}" time="${seconds(report.timing.totalMs)}">`,
  ];
  for (const c of report.cases) {
    const scores = Object.entries(c.scores)
      .map(([scorer, score]) => `${scorer}=${score}`)
      .join(" ");
    const open = `    <testcase classname="${name}" name="${escapeXml(c.id)}" time="${seconds(report.timing.cases[c.id])}"`;
    if (c.passed) lines.push(`${open}/>`);
    else if (c.error !== undefined) {
      lines.push(
        `${open}>`,
        `      <error message="${escapeXml(c.error)}">run ${escapeXml(c.runId)}</error>`,
        "    </testcase>",
      );
    } else {
      lines.push(
        `${open}>`,
        `      <failure message="${escapeXml(scores)}">run ${escapeXml(c.runId)}</failure>`,
        "    </testcase>",
      );
    }
  }
  for (const id of report.regressions) {
    lines.push(
      `    <testcase classname="${name}.baseline" name="${escapeXml(id)} did not regress">`,
      `      <failure message="regressed against the baseline"/>`,
      "    </testcase>",
    );
  }
  lines.push("  </testsuite>", "</testsuites>", "");
  return lines.join("\n");
}
