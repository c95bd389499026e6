import type { Harness, Outcome } from "../harness.js";
import { checkedRun, liveHeap } from "../measure.js";

/**
 * Bytes of live heap that one `steps`-step run leaves behind while its result is held: the heap
 * after full collections with the results of `runs` runs kept, minus the heap before them, divided
 * by `runs`.
 */
export async function measureHeap(harness: Harness, steps: number, runs: number): Promise<number> {
  const run = checkedRun(harness, steps);
  const kept: Outcome[] = [];
  const before = liveHeap();
  for (let index = 0; index < runs; index++) kept.push((await run()).outcome);
  const after = liveHeap();
  if (kept.length !== runs) throw new Error("unreachable: the results are held until here");
  return (after - before) / runs;
}
