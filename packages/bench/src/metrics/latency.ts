import type { Harness } from "../harness.js";
import { type CheckedRun, checkedRun, meanRunMs, median } from "../measure.js";

/** How long the interleaved rounds run. */
export interface LatencyPlan {
  /** Run lengths in steps (model calls), the happy path's 3 among them. */
  readonly lengths: readonly number[];
  readonly rounds: number;
  /** Each sample runs back to back for this long, in milliseconds (at least one run). */
  readonly sampleMs: number;
  /** Milliseconds of warm-up runs per harness and length. */
  readonly warmMs: number;
}

/** Microseconds per step, by harness name, then by run length. */
export type Latency = ReadonlyMap<string, ReadonlyMap<number, number>>;

/**
 * Measures microseconds per step of every harness at every length: a warm-up of `warmMs` each
 * (lengths up to 100; longer runs are warm by then: agentloop needs about a second of running to
 * reach its steady speed), then `rounds` rounds that each take one sample of every (length,
 * harness) pair, the harnesses in an order rotated per round; the result is the median of the
 * rounds. No collection is forced between samples: a forced full GC shrinks V8's young generation
 * and slows the next second of any allocating code, the floor's too, by 2-3×.
 */
export async function measureLatency(harnesses: readonly Harness[], plan: LatencyPlan): Promise<Latency> {
  const runs = new Map<string, CheckedRun>();
  const samples = new Map<string, number[]>();
  const key = (harness: Harness, length: number) => `${harness.name}\u0000${length}`;
  for (const length of plan.lengths) {
    for (const harness of harnesses) {
      const run = checkedRun(harness, length);
      runs.set(key(harness, length), run);
      samples.set(key(harness, length), []);
      if (length <= 100) await meanRunMs(run, plan.warmMs);
    }
  }
  for (let round = 0; round < plan.rounds; round++) {
    for (const length of plan.lengths) {
      for (let index = 0; index < harnesses.length; index++) {
        const harness = harnesses[(index + round) % harnesses.length] as Harness;
        const ms = await meanRunMs(runs.get(key(harness, length)) as CheckedRun, plan.sampleMs);
        samples.get(key(harness, length))?.push((ms * 1000) / length);
      }
    }
  }
  const latency = new Map<string, Map<number, number>>();
  for (const harness of harnesses) {
    latency.set(
      harness.name,
      new Map(plan.lengths.map((length) => [length, median(samples.get(key(harness, length)) ?? [])])),
    );
  }
  return latency;
}
