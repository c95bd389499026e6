import { stateName } from "../chart/statechart.js";
import type { EventStore, RunSummary, StoredEvent } from "../core-api.js";
import { RunTracer } from "./run-trace.js";

/** Where a live run is: its state, model calls made of the limit, tokens spent of the budget. */
export interface Progress {
  readonly state: string;
  readonly steps: number;
  readonly maxSteps: number;
  readonly tokens: number;
  readonly tokenBudget: number;
  /** The tools running now, if any (several when calls run at once). */
  readonly tool: string | null;
}

/**
 * A store that keeps every event in `inner` and, once it is kept, folds it (`LogFold`) to tell
 * `onProgress` where the run is. Events are logged before the machine sees them, so the state
 * told is the one the machine is about to enter. A resumed run passes the tracer of its log so far,
 * and `demo` one that keeps the entries for its timeline: nothing is folded twice. Progress is only a view: an event the fold refuses stops the
 * reports, never the run.
 */
export function progressTap(
  inner: EventStore,
  onProgress: (progress: Progress) => void,
  tracer: RunTracer = new RunTracer(undefined, { keep: false }),
): EventStore {
  const { fold } = tracer;
  let broken = false;
  const report = (event: StoredEvent) => {
    if (broken) return;
    try {
      const step = tracer.add(event);
      const limits = tracer.settings ?? { maxSteps: 0, tokenBudget: 0 };
      const running = [...fold.running.values()];
      onProgress({
        state: stateName(fold.chart, step.state),
        steps: step.steps,
        maxSteps: limits.maxSteps,
        tokens: step.tokens,
        tokenBudget: limits.tokenBudget,
        tool: running.length === 0 ? null : running.join(", "),
      });
    } catch {
      broken = true;
    }
  };
  return {
    async append(runId: string, event: StoredEvent): Promise<void> {
      await inner.append(runId, event);
      report(event);
    },
    read: (runId: string): Promise<StoredEvent[]> => inner.read(runId),
    list: (): Promise<RunSummary[]> => inner.list(),
  };
}
