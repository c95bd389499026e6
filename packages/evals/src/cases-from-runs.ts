import { replayRun } from "@agentloop/core";
import type { EventStore, RunSummary, StoredEvent } from "@agentloop/core/store";
import type { EvalCase } from "./types.js";

/** Options of `casesFromRuns`: which logged runs become cases. */
export interface CasesFromRunsOptions {
  /** Only runs started at or after this time. */
  readonly since?: Date;
  /** Only runs this keeps (after `since`); by default every run that ended `done`. */
  readonly filter?: (summary: RunSummary) => boolean;
}

/**
 * Turns logged runs into cases, so that yesterday's good runs become today's regression suite:
 * each run that ended `done` (a top-level run, not an agent tool's child) gives a case whose id
 * is its run id, whose task is its task, whose `expected` is its checked output or else its
 * answer, and whose `metadata.events` is its log, for `recordedTools`. Cases come in the order
 * the runs started; a log that does not replay is left out.
 */
export async function casesFromRuns(store: EventStore, options: CasesFromRunsOptions = {}): Promise<EvalCase[]> {
  const since = options.since?.getTime();
  const keep = options.filter ?? ((summary: RunSummary) => summary.outcome?.status === "done");
  const summaries = (await store.list())
    .filter((summary) => since === undefined || Date.parse(summary.startedAt) >= since)
    .filter(keep)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.runId.localeCompare(b.runId));
  const cases: EvalCase[] = [];
  for (const summary of summaries) {
    const events = await store.read(summary.runId).catch(() => undefined);
    const started = events?.[0];
    if (events === undefined || started?.type !== "run.started" || started.parent !== undefined) continue;
    let expected: unknown;
    try {
      const { result } = replayRun(events, { runId: summary.runId });
      if (result === null) continue;
      expected = result.output !== undefined ? result.output : result.answer;
    } catch {
      continue;
    }
    cases.push({ id: summary.runId, task: summary.task, expected, metadata: { runId: summary.runId, events } });
  }
  return cases;
}

/** The recorded log a case from `casesFromRuns` carries (empty for any other case). */
export function recordingOf(c: EvalCase): readonly StoredEvent[] {
  const events = c.metadata?.events;
  return Array.isArray(events) ? (events as StoredEvent[]) : [];
}
