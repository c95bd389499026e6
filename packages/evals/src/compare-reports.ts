import type { CaseReport, EvalReport } from "./types.js";

/** What changed against a baseline, by case id, in the order of `cases`. */
export interface Comparison {
  readonly regressions: string[];
  readonly improvements: string[];
  readonly changed: string[];
}

/**
 * Compares cases with the baseline's of the same id: a case regressed when it passed there and
 * fails now, or when a score fell; it improved when it failed there and passes now, or a score
 * rose and none fell; it changed when its status, answer, pass or scores differ. A case the
 * baseline does not have is none of these. Without a baseline every list is empty.
 */
export function compareReports(cases: readonly CaseReport[], baseline: EvalReport | undefined): Comparison {
  const comparison: Comparison = { regressions: [], improvements: [], changed: [] };
  if (baseline === undefined) return comparison;
  const before = new Map(baseline.cases.map((c) => [c.id, c]));
  for (const now of cases) {
    const then = before.get(now.id);
    if (then === undefined) continue;
    const names = new Set([...Object.keys(then.scores), ...Object.keys(now.scores)]);
    let fell = false;
    let rose = false;
    for (const name of names) {
      const a = then.scores[name] ?? 0;
      const b = now.scores[name] ?? 0;
      if (b < a) fell = true;
      if (b > a) rose = true;
    }
    if ((then.passed && !now.passed) || fell) comparison.regressions.push(now.id);
    else if ((!then.passed && now.passed) || rose) comparison.improvements.push(now.id);
    const differs =
      fell || rose || then.passed !== now.passed || then.status !== now.status || then.answer !== now.answer;
    if (differs) comparison.changed.push(now.id);
  }
  return comparison;
}
