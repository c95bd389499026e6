import type { AgentResult, EventStore } from "@agentloop/core";
import type { RunEvent } from "@agentloop/core/store";

/** One task to run and score; `expected` is what the scorers compare against (an answer, an output, anything). */
export interface EvalCase {
  readonly id: string;
  readonly task: string;
  readonly expected?: unknown;
  readonly metadata?: Record<string, unknown>;
}

/** What a scorer is given: the case, the run's result, and the run's logged events in order. */
export interface ScoreInput {
  readonly case: EvalCase;
  readonly result: AgentResult;
  readonly events: readonly RunEvent[];
  /** Where the case's run is kept: a scorer that runs a model of its own (a judge) logs its run there. */
  readonly store?: EventStore;
  /** The case's run id; a judge's run id is derived from it. */
  readonly runId?: string;
  /** A scorer that makes a run of its own (a judge) reports its run id here, so that the report links it. */
  readonly onRun?: (runId: string) => void;
  /** The evaluation's signal: a scorer that runs a model of its own (a judge) stops its run when it aborts. */
  readonly signal?: AbortSignal;
}

/** A named score from 0 to 1; the case passes it at or above `threshold` (default 1). A throw is an error score. */
export interface Scorer {
  readonly name: string;
  readonly threshold?: number;
  score(input: ScoreInput): number | Promise<number>;
}

/** One case in a report: its run, its scores by scorer name, and whether it passed every scorer. */
export interface CaseReport {
  readonly id: string;
  readonly runId: string;
  readonly scores: Record<string, number>;
  readonly passed: boolean;
  /** Why the case could not be scored in full: its run rejected, or named scorers threw or gave no score in 0..1. */
  readonly error?: string;
  /** How the run ended (absent when it rejected). */
  readonly status?: string;
  /** The run's final answer (null without one, absent when it rejected). */
  readonly answer?: string | null;
  /** Tokens the run spent (0 when it rejected). */
  readonly tokens: number;
  /** The runs the scorers made (a judge's), by scorer name: each one logged, to be shown or replayed. */
  readonly scorerRuns?: Record<string, string>;
}

/**
 * What `evaluate` returns: the cases in the order given (a case not run after an interruption is
 * left out and counted in `notRun`), totals, and against the baseline the ids of the cases that
 * regressed, improved or changed. Everything but `timing` follows from the runs' logs alone.
 */
export interface EvalReport {
  readonly name: string;
  readonly passed: number;
  readonly failed: number;
  readonly cases: readonly CaseReport[];
  readonly regressions: string[];
  readonly improvements: string[];
  /** Cases whose status, answer or scores differ from the baseline's (regressions and improvements among them). */
  readonly changed: string[];
  /** Tokens spent by every case's run. */
  readonly tokens: number;
  /** Set when the evaluation was stopped by its signal: the report holds only the cases that finished. */
  readonly interrupted?: true;
  /** Cases not run because the evaluation was stopped. */
  readonly notRun: number;
  /** Wall-clock milliseconds: the whole evaluation and each case's run and scoring. */
  readonly timing: { readonly totalMs: number; readonly cases: Record<string, number> };
}

/** What the case's `run` is given: the store to log the run in, the run id to give it, and the evaluation's signal. */
export interface RunContext {
  readonly store: EventStore;
  readonly runId: string;
  readonly signal: AbortSignal;
}
