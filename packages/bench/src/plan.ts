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

/**
 * The plan of a full run or of a `--tiny` one. Each size is given once, as `size(full, tiny)`; what
 * both runs share (the happy path's length, a batch run's steps and model delay) is stated once.
 */
function plan(tiny: boolean): Plan {
  const size = <T>(full: T, small: T): T => (tiny ? small : full);
  /** A batch of concurrent runs of 5 steps each, the model waiting 20 ms on every call. */
  const batch = (runs: number, rounds: number): ConcurrencyPlan => ({ runs, steps: 5, delayMs: 20, rounds });
  return {
    tiny,
    happySteps: 3,
    lengths: size([10, 100, 1000], [5, 10]),
    latency: { rounds: size(5, 1), sampleMs: size(300, 5), warmMs: size(1500, 5) },
    longSteps: size(1000, 10),
    heapRuns: size(2, 1),
    concurrency: batch(size(1000, 10), size(3, 1)),
    bigBatch: batch(size(10_000, 20), size(3, 1)),
    logRounds: size(9, 1),
    storeSteps: size(100, 3),
    store: { rounds: size(5, 1), sampleMs: size(200, 1) },
    storeLoad: {
      runs: size(100, 5),
      eventsPerRun: size(300, 10),
      maxMs: size(3000, 1000),
      logLength: size(30_000, 60),
      window: size(1000, 10),
    },
    storeRuns: { steps: size(100, 5), rounds: size(15, 1), sampleMs: size(100, 1) },
    longRuns: { lengths: size([10_000, 100_000], [20, 40]), rounds: size(3, 1) },
    parallelCalls: { ms: size(300, 5), rounds: size(5, 1) },
    validation: { rounds: size(7, 1), calls: size(20_000, 10) },
    patterns: {
      exponentialLengths: size([16, 20, 24], [8, 10]),
      longLength: size(40_000, 100),
      rounds: size(7, 1),
      calls: size(20_000, 10),
    },
    restate: {
      lengths: size([10, 100], [5, 10]),
      rounds: size(5, 1),
      runsPerSample: size(3, 1),
      batch: batch(size(200, 10), size(3, 1)),
    },
  };
}

export const FULL: Plan = plan(false);

export const TINY: Plan = plan(true);
