import { describe, expect, it } from "vitest";
import { type EvalReport, junitReport, reportTable } from "../src/index.js";

const report: EvalReport = {
  name: "weather <evals>",
  passed: 1,
  failed: 2,
  cases: [
    {
      id: "good",
      runId: "r1",
      scores: { exact: 1, judge: 0.875 },
      passed: true,
      status: "done",
      answer: "86",
      tokens: 10,
    },
    {
      id: "bad",
      runId: "r2",
      scores: { exact: 0, judge: 0.2 },
      passed: false,
      status: "done",
      answer: "80",
      tokens: 12,
    },
    { id: "broken & odd", runId: "r3", scores: {}, passed: false, error: "run: model down", tokens: 0 },
  ],
  regressions: ["bad"],
  improvements: [],
  changed: ["bad"],
  tokens: 22,
  notRun: 1,
  interrupted: true,
  timing: { totalMs: 1500, cases: { good: 500, bad: 250, "broken & odd": 10 } },
};

describe("report outputs", () => {
  it("the table: a row per case with its scores and run, then totals, the interruption and the regressions", () => {
    const lines = reportTable(report);
    expect(lines[0]).toMatch(/^\s+case\s+exact\s+judge\s+run$/);
    expect(lines[1]).toMatch(/^pass\s+good\s+1\s+0\.88\s+r1$/);
    expect(lines[2]).toMatch(/^FAIL\s+bad\s+0\s+0\.2\s+r2$/);
    expect(lines[3]).toMatch(/^ERROR\s+broken & odd\s+-\s+-\s+r3$/);
    expect(lines.slice(4)).toEqual([
      "error in broken & odd: run: model down",
      "weather <evals>: 1 passed, 2 failed, 22 tokens",
      "interrupted: 1 of 4 cases not run",
      "regressed: bad",
    ]);
  });

  it("JUnit XML: a testcase per case (failure, error), one per regression, escaped, with times in seconds", () => {
    const xml = junitReport(report);
    expect(xml).toContain(
      '<testsuite name="weather &#60;evals&#62;" tests="4" failures="2" errors="1" skipped="1" time="1.500">',
    );
    expect(xml).toContain('<testcase classname="weather &#60;evals&#62;" name="good" time="0.500"/>');
    expect(xml).toContain('<failure message="exact=0 judge=0.2">run r2</failure>');
    expect(xml).toContain('name="broken &#38; odd" time="0.010">');
    expect(xml).toContain('<error message="run: model down">run r3</error>');
    expect(xml).toContain('name="bad did not regress"');
  });
});
