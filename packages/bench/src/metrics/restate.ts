import { checkOutcome } from "../harness.js";
import { outcomeOf } from "../harnesses/agentloop.js";
import { median } from "../measure.js";
import { type Cluster, startCluster } from "../restate/cluster.js";

/** The sizes of the Restate measurements. */
export interface RestatePlan {
  /** Run lengths whose cost per step is measured (each also measured for runAgent by the latency rounds). */
  readonly lengths: readonly number[];
  readonly rounds: number;
  /** Sequential runs per sample. */
  readonly runsPerSample: number;
  /** Concurrent runs on one, then on two service processes; each model call waits `delayMs`. */
  readonly batch: { readonly runs: number; readonly steps: number; readonly delayMs: number; readonly rounds: number };
}

/** What the Restate rows show: microseconds per step by run length, and the batch's wall milliseconds by service processes. */
export interface RestateCost {
  readonly perStep: ReadonlyMap<number, number>;
  readonly batch: ReadonlyMap<number, number>;
}

const NAME = "agentloop on Restate";

/**
 * Runs the weather scenario on a Restate server started from `node_modules`, with its service in
 * other processes: the cost per step of sequential runs on one service process, then the wall
 * time of a batch of concurrent runs on one and on two processes (behind one address). Every run
 * is checked. Resolves to why not, instead, when the server or a service cannot start.
 */
export async function measureRestate(plan: RestatePlan): Promise<RestateCost | string> {
  let cluster: Cluster | null = null;
  try {
    cluster = await startCluster(1);
    const perStep = await measurePerStep(cluster, plan);
    const batch = new Map([[1, await measureBatch(cluster, plan.batch)]]);
    await cluster.close();
    cluster = await startCluster(2);
    batch.set(2, await measureBatch(cluster, plan.batch));
    return { perStep, batch };
  } catch (error) {
    return `${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
  } finally {
    await cluster?.close();
  }
}

async function checkedRun(cluster: Cluster, steps: number, delayMs: number): Promise<void> {
  checkOutcome(NAME, outcomeOf(await cluster.run(steps, delayMs)), steps);
}

async function measurePerStep(cluster: Cluster, plan: RestatePlan): Promise<Map<number, number>> {
  for (const length of plan.lengths) await checkedRun(cluster, length, 0);
  const samples = new Map<number, number[]>(plan.lengths.map((length) => [length, []]));
  for (let round = 0; round < plan.rounds; round++) {
    for (const length of plan.lengths) {
      const start = performance.now();
      for (let run = 0; run < plan.runsPerSample; run++) await checkedRun(cluster, length, 0);
      const ms = (performance.now() - start) / plan.runsPerSample;
      samples.get(length)?.push((ms * 1000) / length);
    }
  }
  return new Map([...samples].map(([length, values]) => [length, median(values)]));
}

async function measureBatch(cluster: Cluster, batch: RestatePlan["batch"]): Promise<number> {
  const once = async (runs: number) => {
    const start = performance.now();
    await Promise.all(Array.from({ length: runs }, () => checkedRun(cluster, batch.steps, batch.delayMs)));
    return performance.now() - start;
  };
  await once(Math.min(batch.runs, 20));
  const samples: number[] = [];
  for (let round = 0; round < batch.rounds; round++) samples.push(await once(batch.runs));
  return median(samples);
}
