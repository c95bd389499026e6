import { checkOutcome } from "../harness.js";
import { outcomeOf } from "../harnesses/agentloop.js";
import { median } from "../measure.js";
import { type Cluster, type CpuMs, startCluster } from "../restate/cluster.js";

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

/** What the Restate rows show: microseconds per step by run length (agentloop's and the bare workflow's), and the batch's wall milliseconds by service processes. */
export interface RestateCost {
  readonly perStep: ReadonlyMap<number, number>;
  /** A bare workflow making the same `ctx.run` calls per step, measured in the same rounds. */
  readonly bare: ReadonlyMap<number, number>;
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
    const { perStep, bare } = await measurePerStep(cluster, plan);
    const batch = new Map([[1, await measureBatch(cluster, plan.batch)]]);
    await cluster.close();
    cluster = await startCluster(2);
    batch.set(2, await measureBatch(cluster, plan.batch));
    return { perStep, bare, batch };
  } catch (error) {
    return `${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
  } finally {
    await cluster?.close();
  }
}

async function checkedRun(cluster: Cluster, steps: number, delayMs: number): Promise<void> {
  checkOutcome(NAME, outcomeOf(await cluster.run(steps, delayMs)), steps);
}

async function checkedBare(cluster: Cluster, steps: number): Promise<void> {
  const made = await cluster.runBare(steps, 0);
  if (made !== steps) throw new Error(`the bare workflow made ${made} model calls, not ${steps}`);
}

/**
 * Microseconds per step of agentloop's runs and of the bare workflow's, by run length: the two
 * alternate within every round (which goes first alternates too), so the server's drift hits both alike.
 */
export async function measurePerStep(
  cluster: Cluster,
  plan: RestatePlan,
  cpu?: { perStep: Map<number, CpuMs[]>; bare: Map<number, CpuMs[]> },
): Promise<{ perStep: Map<number, number>; bare: Map<number, number> }> {
  const kinds = [(length: number) => checkedRun(cluster, length, 0), (length: number) => checkedBare(cluster, length)];
  for (const length of plan.lengths) for (const run of kinds) await run(length);
  const samples = kinds.map(() => new Map<number, number[]>(plan.lengths.map((length) => [length, []])));
  for (let round = 0; round < plan.rounds; round++) {
    for (const length of plan.lengths) {
      for (const kind of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const run = kinds[kind] as (length: number) => Promise<void>;
        const start = performance.now();
        const cpuStart = cluster.cpuMs();
        for (let index = 0; index < plan.runsPerSample; index++) await run(length);
        const ms = (performance.now() - start) / plan.runsPerSample;
        samples[kind]?.get(length)?.push((ms * 1000) / length);
        const cpuEnd = cluster.cpuMs();
        const perStep = (ms: number) => (ms * 1000) / plan.runsPerSample / length;
        const used = {
          server: perStep(cpuEnd.server - cpuStart.server),
          service: perStep(cpuEnd.service - cpuStart.service),
        };
        (kind === 0 ? cpu?.perStep : cpu?.bare)?.get(length)?.push(used);
      }
    }
  }
  const medians = (kind: number) =>
    new Map([...(samples[kind] ?? new Map<number, number[]>())].map(([length, values]) => [length, median(values)]));
  return { perStep: medians(0), bare: medians(1) };
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
