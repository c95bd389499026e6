import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { checkExecutions, checkOutcome, type Harness, type Outcome } from "./harness.js";
import { executions } from "./scenario.js";

/** The median of `samples` (NaN for none). */
export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A full garbage collection: `global.gc` under `--expose-gc`, else the same function fetched through V8's flags. */
export const collectGarbage: () => void = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

/** Live heap in bytes after two full collections (the second frees what finalizers of the first released). */
export function liveHeap(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/**
 * One prepared run of a harness that checks itself: it throws `BadRunError` unless the scenario's
 * work was done, and resolves to the milliseconds the run took (the checks are not counted) and its outcome.
 */
export type CheckedRun = () => Promise<{ readonly ms: number; readonly outcome: Outcome }>;

/** Prepares `steps`-step runs of `harness` for sequential use: each run checks its outcome and the tools' executions. */
export function checkedRun(harness: Harness, steps: number, delayMs = 0): CheckedRun {
  const run = harness.prepare(steps, delayMs);
  return async () => {
    const before = executions.count;
    const start = performance.now();
    const outcome = await run();
    const ms = performance.now() - start;
    checkExecutions(harness.name, before, executions.count, steps - 1);
    checkOutcome(harness.name, outcome, steps);
    return { ms, outcome };
  };
}

/**
 * Runs `run` back to back until the runs took `minMs` milliseconds in all (at least once), and
 * returns the mean milliseconds of one run.
 */
export async function meanRunMs(run: CheckedRun, minMs: number): Promise<number> {
  let total = 0;
  let runs = 0;
  do {
    total += (await run()).ms;
    runs++;
  } while (total < minMs);
  return total / runs;
}
