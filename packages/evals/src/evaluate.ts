import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { type AgentResult, type EventStore, MemoryEventStore } from "@agentloop/core";
import { compareReports } from "./compare-reports.js";
import { messageOf } from "./message-of.js";
import { scoreCase } from "./score-case.js";
import type { CaseReport, EvalCase, EvalReport, RunContext, Scorer } from "./types.js";

/** Options of `evaluate`. */
export interface EvaluateOptions {
  readonly name: string;
  readonly cases: readonly EvalCase[];
  /** Runs one case as a logged run: pass `context.store`, `context.runId` and `context.signal` to `runAgent`. */
  readonly run: (c: EvalCase, context: RunContext) => Promise<AgentResult>;
  readonly scorers: readonly Scorer[];
  /** Cases run at once (default 4). */
  readonly concurrency?: number;
  /** Where the runs are logged (default: a new `MemoryEventStore`). */
  readonly store?: EventStore;
  /** A report of an earlier evaluation: the new one lists what regressed, improved and changed against it. */
  readonly baseline?: EvalReport;
  /** Stops the evaluation: no case starts after it aborts, the running ones get it, and the report says it was interrupted. */
  readonly signal?: AbortSignal;
  /** The run id of a case (default: the case id and a random suffix); a run id must not be in the store yet. */
  readonly runId?: (c: EvalCase, index: number) => string;
  /** Hears each case as it is scored, with how many are done of how many. */
  readonly onCase?: (report: CaseReport, done: number, total: number) => void;
}

/**
 * Runs every case as a logged run, at most `concurrency` at once, scores each with every scorer,
 * and returns the report. A case whose run rejects, or a scorer that throws, is an error of that
 * case (named in its `error`), never of the evaluation. Rejects with `TypeError` or `RangeError`
 * for options that make no sense (duplicate case ids, duplicate scorer names, a bad concurrency)
 * before any case runs.
 */
export async function evaluate(options: EvaluateOptions): Promise<EvalReport> {
  const { cases } = options;
  const concurrency = options.concurrency ?? 4;
  checkOptions(options, concurrency);
  const store = options.store ?? new MemoryEventStore();
  const signal = innerSignal(options.signal);
  const runIdOf = options.runId ?? ((c: EvalCase) => `${safeId(c.id)}-${randomUUID().slice(0, 8)}`);
  const reports: (CaseReport | undefined)[] = new Array(cases.length);
  const times: Record<string, number> = {};
  const started = performance.now();
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length && !signal.aborted) {
      const index = next++;
      const c = cases[index] as EvalCase;
      const caseStarted = performance.now();
      const report = await runCase(c, runIdOf(c, index), { ...options, store, signal });
      times[c.id] = performance.now() - caseStarted;
      reports[index] = report;
      done += 1;
      options.onCase?.(report, done, cases.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, cases.length) }, worker));
  const finished = reports.filter((report): report is CaseReport => report !== undefined);
  const compared = compareReports(finished, options.baseline);
  return {
    name: options.name,
    passed: finished.filter((report) => report.passed).length,
    failed: finished.filter((report) => !report.passed).length,
    cases: finished,
    ...compared,
    tokens: finished.reduce((sum, report) => sum + report.tokens, 0),
    ...(signal.aborted ? { interrupted: true as const } : {}),
    notRun: cases.length - finished.length,
    timing: { totalMs: performance.now() - started, cases: times },
  };
}

async function runCase(
  c: EvalCase,
  runId: string,
  options: EvaluateOptions & { store: EventStore; signal: AbortSignal },
): Promise<CaseReport> {
  let result: AgentResult;
  try {
    result = await options.run(c, { store: options.store, runId, signal: options.signal });
    const problem = resultProblem(result);
    if (problem !== undefined)
      throw new TypeError(`${problem}, not the result of a run (return what runAgent returns)`);
  } catch (error) {
    return { id: c.id, runId, scores: {}, passed: false, error: `run: ${messageOf(error)}`, tokens: 0 };
  }
  const usedRunId = result.runId ?? runId;
  const events = await options.store.read(usedRunId).catch(() => []);
  const input = { case: c, result, events, store: options.store, runId: usedRunId, signal: options.signal };
  return scoreCase(input, options.scorers);
}

/** What is wrong with what a case's `run` resolved to, when it is no run's result (a `run` that forgot to return). */
function resultProblem(result: unknown): string | undefined {
  if (typeof result !== "object" || result === null) return `resolved to ${result === null ? "null" : typeof result}`;
  if (!("status" in result) || typeof result.status !== "string") return "resolved to an object with no status";
  return undefined;
}

function checkOptions(options: EvaluateOptions, concurrency: number): void {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a whole number of at least 1, got ${concurrency}`);
  }
  const ids = new Set<string>();
  for (const c of options.cases) {
    if (ids.has(c.id)) throw new TypeError(`two cases have the id '${c.id}': case ids must be unique`);
    ids.add(c.id);
  }
  const names = new Set<string>();
  for (const scorer of options.scorers) {
    if (names.has(scorer.name)) throw new TypeError(`two scorers are named '${scorer.name}': names must be unique`);
    names.add(scorer.name);
  }
}

/** A case id made fit for a run id (letters, digits, `_`, `-`, `.`). */
function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 80) || "case";
}

/**
 * The signal the cases' runs get: aborted with the caller's, which so gets one listener, while
 * every running case adds its own to this one (more than Node's default ten at a concurrency above ten).
 */
function innerSignal(outer: AbortSignal | undefined): AbortSignal {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
  return controller.signal;
}
