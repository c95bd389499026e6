import { describe, expect, it } from "vitest";
import type { EvalReportData } from "../server/eval-reports.js";
import { evalReportFile, renderEvalReport } from "./eval-pages.js";

const report: EvalReportData = {
  name: "weather <evals>",
  passed: 1,
  failed: 2,
  tokens: 22,
  cases: [
    { id: "good", runId: "r1", scores: { exact: 1, judge: 0.875 }, passed: true, status: "done", answer: "86" },
    { id: "bad", runId: "r2", scores: { exact: 0, judge: 0.2 }, passed: false, status: "done", answer: "80" },
    { id: "broken & odd", runId: "r3", scores: {}, passed: false, error: "run: model down" },
  ],
  regressions: ["bad"],
  improvements: [],
  interrupted: true,
  notRun: 1,
};

describe("an eval report's page", () => {
  it("as a file of its own: cases × scorers, each run one click away, the regressions marked, escaped", () => {
    const page = evalReportFile(report, (runId) => `runs/${runId}.jsonl`);
    expect(page).toContain("<th>exact</th><th>judge</th>");
    expect(page).toContain('<a href="runs/r2.jsonl">r2</a>');
    expect(page).toContain('class="fail regressed"');
    expect(page).toContain('<span class="badge regressed">regressed</span>');
    expect(page).toContain("broken &amp; odd");
    expect(page).toContain("run: model down");
    expect(page).toContain("interrupted: 1 cases not run");
    expect(page).not.toContain("<evals>");
    // A file stands alone: no bar of links to the studio's pages.
    expect(page).not.toContain('href="/evals"');
  });

  it("in the studio: under the studio's bar, each run a link to its page", () => {
    const page = renderEvalReport({ file: "r.json", report });
    expect(page).toContain('<a href="/evals">evals</a>');
    expect(page).toContain('<a href="/runs/r3">r3</a>');
    expect(page).toContain('<a href="/evals/r.json">r.json</a>: 1 passed, 2 failed of 3 cases');
  });
});
