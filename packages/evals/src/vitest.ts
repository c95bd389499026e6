import { beforeAll, describe, it } from "vitest";
import { type EvaluateOptions, evaluate } from "./evaluate.js";
import type { EvalReport } from "./types.js";

/**
 * Keeps an evaluation in a vitest suite: a `describe` named after it whose `beforeAll` runs it,
 * a test per case that fails with the case's scores or error, and with a baseline a test that
 * fails naming the cases that regressed. `onReport` gets the report once it is made.
 */
export function describeEval(options: EvaluateOptions & { readonly onReport?: (report: EvalReport) => void }): void {
  describe(options.name, () => {
    let report: EvalReport | undefined;
    beforeAll(async () => {
      report = await evaluate(options);
      options.onReport?.(report);
    });
    for (const c of options.cases) {
      it(c.id, () => {
        const found = report?.cases.find((each) => each.id === c.id);
        if (found === undefined) throw new Error(`case '${c.id}' was not run`);
        if (!found.passed) {
          throw new Error(`case '${c.id}' failed: ${found.error ?? JSON.stringify(found.scores)} (run ${found.runId})`);
        }
      });
    }
    if (options.baseline !== undefined) {
      it("no case regressed against the baseline", () => {
        if (report === undefined) throw new Error("the evaluation did not run");
        if (report.regressions.length > 0) throw new Error(`regressed: ${report.regressions.join(", ")}`);
      });
    }
  });
}
