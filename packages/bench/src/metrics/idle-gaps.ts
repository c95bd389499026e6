import { setTimeout as sleep } from "node:timers/promises";
import { checkOutcome } from "../harness.js";
import { agentloopHarness } from "../harnesses/agentloop.js";
import { median } from "../measure.js";

/** CPU microseconds per step of `runAgent` in this process: back to back, and with the process idle between steps. */
export interface IdleGapCost {
  /** The model answers at once: the process never sleeps, its caches stay warm. */
  readonly backToBack: number;
  /** The model answers after `gapMs`, with the CPU of the wait itself (a bare timer's) taken off. */
  readonly gapped: number;
  readonly gapMs: number;
}

/**
 * What a step of agentloop costs when the process sleeps between steps, as a durable service's
 * does between journal round trips (and any run's between real model calls), beside the same step
 * back to back: `steps`-step runs of the weather scenario, CPU from `process.cpuUsage`.
 */
export async function measureIdleGaps(steps: number, rounds: number, gapMs = 2): Promise<IdleGapCost> {
  const cpu = async (work: () => Promise<void>, perSample: number): Promise<number> => {
    const start = process.cpuUsage();
    await work();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / perSample;
  };
  const runs = async (delayMs: number, count: number) => {
    const run = agentloopHarness.prepare(steps, delayMs);
    for (let index = 0; index < count; index++) checkOutcome("agentloop", await run(), steps);
  };
  await runs(0, 50);
  const backToBack: number[] = [];
  const gapped: number[] = [];
  for (let round = 0; round < rounds; round++) {
    backToBack.push(await cpu(() => runs(0, 20), 20 * steps));
    const waits = await cpu(async () => {
      for (let index = 0; index < 3 * steps; index++) await sleep(gapMs);
    }, 3 * steps);
    gapped.push((await cpu(() => runs(gapMs, 3), 3 * steps)) - waits);
  }
  return { backToBack: median(backToBack), gapped: median(gapped), gapMs };
}
