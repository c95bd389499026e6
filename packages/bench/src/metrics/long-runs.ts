import type { Harness } from "../harness.js";
import { checkedRun, median } from "../measure.js";

/** Microseconds per step of each harness at each long length, by harness name, then by length. */
export type LongRuns = ReadonlyMap<string, ReadonlyMap<number, number>>;

/**
 * Per step at lengths the peers cannot reach in a bench's time (10,000 and 100,000 steps), for the
 * floor and agentloop only: `rounds` runs of each length, the harnesses alternating, the median
 * kept. A long run is warm after its first second, so no warm-up is run.
 */
export async function measureLongRuns(
  harnesses: readonly Harness[],
  lengths: readonly number[],
  rounds: number,
): Promise<LongRuns> {
  const samples = new Map(harnesses.map((harness) => [harness.name, new Map(lengths.map((n) => [n, [] as number[]]))]));
  for (const length of lengths) {
    const runs = harnesses.map((harness) => [harness.name, checkedRun(harness, length)] as const);
    for (let round = 0; round < rounds; round++) {
      for (const [name, run] of round % 2 === 0 ? runs : [...runs].reverse()) {
        const { ms } = await run();
        samples
          .get(name)
          ?.get(length)
          ?.push((ms * 1000) / length);
      }
    }
  }
  return new Map(
    [...samples].map(([name, byLength]) => [name, new Map([...byLength].map(([n, values]) => [n, median(values)]))]),
  );
}
