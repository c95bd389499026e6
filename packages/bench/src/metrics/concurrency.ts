import { checkExecutions, checkOutcome, type Harness } from "../harness.js";
import { liveHeap, median } from "../measure.js";
import { executions } from "../scenario.js";

/** A batch of concurrent runs whose model waits per call. */
export interface ConcurrencyPlan {
  readonly runs: number;
  readonly steps: number;
  /** Milliseconds the model waits on every call. */
  readonly delayMs: number;
  readonly rounds: number;
}

/** The ideal wall time of a batch in milliseconds: the model's waits of one run, as if the harness cost nothing. */
export function idealMs(plan: ConcurrencyPlan): number {
  return plan.steps * plan.delayMs;
}

/**
 * Wall milliseconds, by harness name, for `runs` runs started at once and awaited together (the
 * median of `rounds` rounds, the harnesses interleaved); every run and the executions are checked.
 */
export async function measureConcurrency(
  harnesses: readonly Harness[],
  plan: ConcurrencyPlan,
): Promise<ReadonlyMap<string, number>> {
  const samples = new Map<string, number[]>(harnesses.map((harness) => [harness.name, []]));
  for (let round = 0; round < plan.rounds; round++) {
    for (let index = 0; index < harnesses.length; index++) {
      const harness = harnesses[(index + round) % harnesses.length] as Harness;
      const run = harness.prepare(plan.steps, plan.delayMs);
      const before = executions.count;
      const start = performance.now();
      const outcomes = await Promise.all(Array.from({ length: plan.runs }, () => run()));
      samples.get(harness.name)?.push(performance.now() - start);
      checkExecutions(harness.name, before, executions.count, plan.runs * (plan.steps - 1));
      for (const outcome of outcomes) checkOutcome(harness.name, outcome, plan.steps);
    }
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

/** Wall time and the heap's peak over a batch: by harness name. */
export type BatchPeaks = ReadonlyMap<string, { readonly wallMs: number; readonly peakBytes: number }>;

/**
 * Like `measureConcurrency`, with the heap watched: the peak of used heap during each batch (read
 * every millisecond the event loop lets a timer run, and when the batch ends) above the heap
 * after full collections just before it. The medians of `rounds` rounds, the harnesses alternating.
 */
export async function measureBatchPeaks(harnesses: readonly Harness[], plan: ConcurrencyPlan): Promise<BatchPeaks> {
  const samples = new Map(harnesses.map((harness) => [harness.name, { wall: [] as number[], peak: [] as number[] }]));
  for (let round = 0; round < plan.rounds; round++) {
    for (let index = 0; index < harnesses.length; index++) {
      const harness = harnesses[(index + round) % harnesses.length] as Harness;
      const run = harness.prepare(plan.steps, plan.delayMs);
      const baseline = liveHeap();
      let peak = baseline;
      const watch = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }, 1);
      const before = executions.count;
      const start = performance.now();
      const outcomes = await Promise.all(Array.from({ length: plan.runs }, () => run()));
      const wall = performance.now() - start;
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      clearInterval(watch);
      samples.get(harness.name)?.wall.push(wall);
      samples.get(harness.name)?.peak.push(peak - baseline);
      checkExecutions(harness.name, before, executions.count, plan.runs * (plan.steps - 1));
      for (const outcome of outcomes) checkOutcome(harness.name, outcome, plan.steps);
    }
  }
  return new Map(
    [...samples].map(([name, { wall, peak }]) => [name, { wallMs: median(wall), peakBytes: median(peak) }]),
  );
}
