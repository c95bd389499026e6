import { final } from "@agentloop/core";
import { afterAll, expect, it } from "vitest";
import { type EvalReport, exactAnswer } from "../src/index.js";
import { describeEval } from "../src/vitest.js";
import { scriptedRun } from "./helpers.js";

let seen: EvalReport | undefined;

describeEval({
  name: "kept in the test suite",
  cases: [
    { id: "capital", task: "Capital of France?", expected: "Paris" },
    { id: "sum", task: "2 + 2?", expected: "4" },
  ],
  run: scriptedRun({ capital: [final("Paris")], sum: [final("4")] }),
  scorers: [exactAnswer()],
  onReport: (report) => {
    seen = report;
  },
});

it("runs the evaluation once, a test per case", () => {
  expect(seen?.cases.map((c) => c.id)).toEqual(["capital", "sum"]);
});

afterAll(() => {
  expect(seen?.passed).toBe(2);
});
