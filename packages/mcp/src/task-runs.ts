import type { AgentResult, EventStore } from "@agentloop/core";

/** A run this process drives for a task: its end, and how to stop it. */
export interface DrivenRun {
  readonly done: Promise<AgentResult>;
  readonly controller: AbortController;
  /** When the task was asked for (ISO 8601): its creation time until the run logs its start. */
  readonly startedAt: string;
}

// Keyed by store, so every server serving the same store in this process (one per connection or
// request) sees the runs the others drive: a client that comes back on a new connection finds them.
const driven = new WeakMap<EventStore, Map<string, DrivenRun>>();
const failures = new WeakMap<EventStore, Map<string, string>>();

function runsOf<T>(map: WeakMap<EventStore, Map<string, T>>, store: EventStore): Map<string, T> {
  let runs = map.get(store);
  if (runs === undefined) {
    runs = new Map();
    map.set(store, runs);
  }
  return runs;
}

/**
 * Drives `work` as run `runId` of `store` until it settles; one driver per run in this process.
 * An error the run throws is kept as the task's failure (`failureOf`); `keepFailure: false` leaves
 * it to the caller (a question the client did not answer is no failure of the run).
 */
export function drive(
  store: EventStore,
  runId: string,
  work: (signal: AbortSignal) => Promise<AgentResult>,
  keepFailure: (error: unknown) => boolean = () => true,
): DrivenRun {
  const runs = runsOf(driven, store);
  const controller = new AbortController();
  const done = work(controller.signal);
  const run: DrivenRun = { done, controller, startedAt: new Date().toISOString() };
  runs.set(runId, run);
  done.then(
    () => runs.delete(runId),
    (error: unknown) => {
      runs.delete(runId);
      if (keepFailure(error))
        runsOf(failures, store).set(runId, error instanceof Error ? error.message : String(error));
    },
  );
  return run;
}

/** The run this process drives as `runId` of `store`, if any. */
export function drivenRun(store: EventStore, runId: string): DrivenRun | undefined {
  return driven.get(store)?.get(runId);
}

/** The error run `runId` threw in this process (its log shows no end then), if any. */
export function failureOf(store: EventStore, runId: string): string | undefined {
  return failures.get(store)?.get(runId);
}
