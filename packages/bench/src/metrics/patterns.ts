import { type ToolParameters, ToolRegistry, ToolSchemaError } from "@agentloop/core";
import { RE2JS } from "re2js";
import { median } from "../measure.js";

/** The sizes of the pattern measurement. */
export interface PatternPlan {
  /** Lengths of the crafted argument for the backtracking check of `^(a+)+$`, each measured once. */
  readonly exponentialLengths: readonly number[];
  /** Length of the crafted argument for the linear checks. */
  readonly longLength: number;
  readonly rounds: number;
  /** Short valid values checked per round, for the per-call cost. */
  readonly calls: number;
}

/** One measured row: what, and its figure already written out. */
export interface PatternRow {
  readonly label: string;
  readonly result: string;
}

const SEMVER =
  "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$";
const schemaOf = (pattern?: string): ToolParameters => ({
  type: "object",
  properties: { v: pattern === undefined ? { type: "string", minLength: 1 } : { type: "string", pattern } },
  required: ["v"],
});

function timed(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

/** Median milliseconds of `work` over `rounds`. */
function medianMs(rounds: number, work: () => unknown): number {
  return median(Array.from({ length: rounds }, () => timed(work)));
}

function registry(pattern?: string): ToolRegistry {
  const made = new ToolRegistry();
  made.register("check", "Checks a version.", schemaOf(pattern), () => null);
  return made;
}

/**
 * Measures what bounding pattern checks costs and what it prevents: the native backtracking check
 * of `^(a+)+$` (which registration now refuses) as its argument grows; registration with and
 * without the risk check's work; a linear pattern on a long crafted argument through `wouldRun`;
 * and `re2js` (a linear-time engine, not a dependency of core) on the same inputs.
 */
export function measurePatterns(plan: PatternPlan): PatternRow[] {
  const rows: PatternRow[] = [];
  const exponential = /^(a+)+$/u;
  for (const length of plan.exponentialLengths) {
    const ms = timed(() => exponential.test(`${"a".repeat(length)}!`));
    rows.push({ label: `native check of ^(a+)+$, ${length} a's and '!'`, result: `${ms.toFixed(1)} ms` });
  }
  const refused = (() => {
    try {
      registry("^(a+)+$");
      return "registered";
    } catch (error) {
      return ToolSchemaError.isInstance(error) ? "refused" : "threw something else";
    }
  })();
  rows.push({ label: "register ^(a+)+$", result: refused });
  const registerUs = (pattern?: string) => (medianMs(plan.rounds, () => registry(pattern)) * 1000).toFixed(1);
  rows.push({
    label: "register a schema with the semver pattern / with no pattern",
    result: `${registerUs(SEMVER)} µs / ${registerUs()} µs`,
  });
  const crafted = `1.2.3-${"a.".repeat(plan.longLength / 2)}!`;
  const semver = registry(SEMVER);
  const call = { id: "c", name: "check", args: { v: crafted } };
  if (semver.wouldRun(call)) throw new Error("pattern bench: the crafted version passed");
  rows.push({
    label: `semver pattern, crafted ${crafted.length}-character argument (wouldRun)`,
    result: `${medianMs(plan.rounds, () => semver.wouldRun(call)).toFixed(2)} ms`,
  });
  const re2 = RE2JS.compile(SEMVER);
  rows.push({
    label: `re2js, the same semver check`,
    result: `${medianMs(plan.rounds, () => re2.matcher(crafted).find()).toFixed(2)} ms`,
  });
  const re2Exponential = RE2JS.compile("^(a+)+$");
  const long = `${"a".repeat(plan.longLength)}!`;
  rows.push({
    label: `re2js, ^(a+)+$ on ${long.length} characters`,
    result: `${medianMs(plan.rounds, () => re2Exponential.matcher(long).find()).toFixed(2)} ms`,
  });
  const native = new RegExp(SEMVER, "u");
  const perCall = (test: (value: string) => boolean) =>
    medianMs(plan.rounds, () => {
      for (let index = 0; index < plan.calls; index++) test("1.22.333-rc.1");
    }) *
    (1000 / plan.calls);
  rows.push({
    label: "semver pattern on a short valid version: native / re2js",
    result: `${perCall((value) => native.test(value)).toFixed(3)} µs / ${perCall((value) => re2.matcher(value).find()).toFixed(3)} µs`,
  });
  return rows;
}
