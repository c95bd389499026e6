import type { ConcurrencyPlan } from "./metrics/concurrency.js";
import type { LatencyPlan } from "./metrics/latency.js";
import type { PatternPlan } from "./metrics/patterns.js";
import type { RestatePlan } from "./metrics/restate.js";
import type { StoreLoadPlan } from "./metrics/store-load.js";
import type { RunCostPlan } from "./metrics/store-run-cost.js";

/** The sizes of one bench run: the full one, or `--tiny` (every metric, in a few seconds). */
export interface Plan {
  readonly tiny: boolean;
  /** The happy path: 2 tool steps and the answer. */
  readonly happySteps: number;
  /** Per-step lengths; the growth is from the first to the last. */
  readonly lengths: readonly number[];
  readonly latency: Omit<LatencyPlan, "lengths">;
  /** The run length of the heap measurement and of the replayed and resumed log. */
  readonly longSteps: number;
  /** Runs whose results are held together in the heap measurement. */
  readonly heapRuns: number;
  readonly concurrency: ConcurrencyPlan;
  /** A larger batch, floor and agentloop only, with the heap's peak watched. */
  readonly bigBatch: ConcurrencyPlan;
  /** Rounds of replay and resume. */
  readonly logRounds: number;
  /** The run length whose log each store appends and reads, and which runs with each store. */
  readonly storeSteps: number;
  readonly store: { readonly rounds: number; readonly sampleMs: number };
  /** Each store under concurrent appends, and along one long log. */
  readonly storeLoad: StoreLoadPlan;
  /** What each store adds to live runs of one step and of `steps` steps. */
  readonly storeRuns: RunCostPlan;
  /** Lengths that only the floor and agentloop run, and how many times each. */
  readonly longRuns: { readonly lengths: readonly number[]; readonly rounds: number };
  /** One reply of three tool calls of `ms` milliseconds each. */
  readonly parallelCalls: { readonly ms: number; readonly rounds: number };
  /** Rounds and calls per round of the validation measurement. */
  readonly validation: { readonly rounds: number; readonly calls: number };
  /** What a backtracking pattern costs, and what checking patterns costs. */
  readonly patterns: PatternPlan;
  /** agentloop on a Restate server: per step at some of `lengths`, and a concurrent batch on one and two service processes. */
  readonly restate: RestatePlan;
}

export const FULL: Plan = {
  tiny: false,
  happySteps: 3,
  lengths: [10, 100, 1000],
  latency: { rounds: 5, sampleMs: 300, warmMs: 1500 },
  longSteps: 1000,
  heapRuns: 2,
  concurrency: { runs: 1000, steps: 5, delayMs: 20, rounds: 3 },
  bigBatch: { runs: 10_000, steps: 5, delayMs: 20, rounds: 3 },
  logRounds: 9,
  storeSteps: 100,
  store: { rounds: 5, sampleMs: 200 },
  storeLoad: { runs: 100, eventsPerRun: 300, maxMs: 3000, logLength: 30_000, window: 1000 },
  storeRuns: { steps: 100, rounds: 15, sampleMs: 100 },
  longRuns: { lengths: [10_000, 100_000], rounds: 3 },
  parallelCalls: { ms: 300, rounds: 5 },
  validation: { rounds: 7, calls: 20_000 },
  patterns: { exponentialLengths: [16, 20, 24], longLength: 40_000, rounds: 7, calls: 20_000 },
  restate: { lengths: [10, 100], rounds: 5, runsPerSample: 3, batch: { runs: 200, steps: 5, delayMs: 20, rounds: 3 } },
};

export const TINY: Plan = {
  tiny: true,
  happySteps: 3,
  lengths: [5, 10],
  latency: { rounds: 1, sampleMs: 5, warmMs: 5 },
  longSteps: 10,
  heapRuns: 1,
  concurrency: { runs: 10, steps: 5, delayMs: 20, rounds: 1 },
  bigBatch: { runs: 20, steps: 5, delayMs: 20, rounds: 1 },
  logRounds: 1,
  storeSteps: 3,
  store: { rounds: 1, sampleMs: 1 },
  storeLoad: { runs: 5, eventsPerRun: 10, maxMs: 1000, logLength: 60, window: 10 },
  storeRuns: { steps: 5, rounds: 1, sampleMs: 1 },
  longRuns: { lengths: [20, 40], rounds: 1 },
  parallelCalls: { ms: 5, rounds: 1 },
  validation: { rounds: 1, calls: 10 },
  patterns: { exponentialLengths: [8, 10], longLength: 100, rounds: 1, calls: 10 },
  restate: { lengths: [5, 10], rounds: 1, runsPerSample: 1, batch: { runs: 10, steps: 5, delayMs: 20, rounds: 1 } },
};
