import type { EventStore } from "@agentloop/core";
import { median } from "../measure.js";
import type { StoreKind } from "../stores.js";
import { loggedRun } from "./event-log.js";

/** The sizes of the live-run measurement. */
export interface RunCostPlan {
  /** The long run's steps; the short run has one. */
  readonly steps: number;
  /** Interleaved rounds, and the milliseconds of runs per sample. */
  readonly rounds: number;
  readonly sampleMs: number;
}

/** What a store adds to a live run, in microseconds: per step, and once per run (lock, files, connections). */
export interface RunCost {
  readonly perStep: number;
  readonly perRun: number;
  /** The same in this process's CPU time (user and system): what a loaded machine moves least; it leaves out waits (an fsync, a server). */
  readonly cpuPerStep: number;
  readonly cpuPerRun: number;
}

/** Milliseconds of wall time and of this process's CPU time, per run. */
interface Sample {
  readonly wall: number;
  readonly cpu: number;
}

/**
 * What logging to a store adds to live runs: runs of one step and of `plan.steps` steps, each with
 * the store and without, interleaved round by round; the store's share of a run is the difference,
 * and the two lengths part it into a cost per step (the slope) and a cost per run (what is left at
 * one step). Medians over the rounds, each round's own difference; in wall time and in CPU time.
 */
export async function measureRunCost(kind: StoreKind, plan: RunCostPlan): Promise<RunCost> {
  let runs = 0;
  const sample = async (steps: number, store: EventStore | undefined): Promise<Sample> => {
    let wall = 0;
    let count = 0;
    const cpu = process.cpuUsage();
    do {
      wall += await loggedRun(steps, store, `live-${runs++}`);
      count++;
    } while (wall < plan.sampleMs);
    const used = process.cpuUsage(cpu);
    return { wall: wall / count, cpu: (used.user + used.system) / 1000 / count };
  };
  const difference = async (steps: number, store: EventStore): Promise<Sample> => {
    const [withStore, without] = [await sample(steps, store), await sample(steps, undefined)];
    return { wall: withStore.wall - without.wall, cpu: withStore.cpu - without.cpu };
  };
  const { store, close } = kind.open();
  try {
    // Warm both paths before the clock counts.
    for (const steps of [1, plan.steps]) await difference(steps, store);
    const short: Sample[] = [];
    const long: Sample[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      short.push(await difference(1, store));
      long.push(await difference(plan.steps, store));
    }
    const part = (of: keyof Sample) => {
      const [one, many] = [median(short.map((s) => s[of])), median(long.map((s) => s[of]))];
      const perStep = ((many - one) * 1000) / (plan.steps - 1);
      return { perStep, perRun: one * 1000 - perStep };
    };
    const [wall, cpu] = [part("wall"), part("cpu")];
    return { ...wall, cpuPerStep: cpu.perStep, cpuPerRun: cpu.perRun };
  } finally {
    await close();
  }
}
