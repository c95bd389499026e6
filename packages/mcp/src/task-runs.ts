import type { AgentResult, EventStore } from "@agentloop/core";
import type { StoredEvent } from "@agentloop/core/store";

/** A run this process drives for a task: its end, and how to stop it. */
export interface DrivenRun {
  readonly done: Promise<AgentResult>;
  readonly controller: AbortController;
  /** When the task was asked for (ISO 8601): its creation time until the run logs its start. */
  readonly startedAt: string;
  /** Settles (never rejects) once the run settled and this process no longer drives it: its failure, if kept, is recorded. */
  readonly ended: Promise<void>;
}

/** An error a run threw, and how many events its log held then: the log says more once it has moved on. */
interface Failure {
  readonly message: string;
  /** `undefined` when the log could not be read then. */
  readonly logged: number | undefined;
}

// Keyed by store, so every server serving the same store in this process (one per connection or
// request) sees the runs the others drive: a client that comes back on a new connection finds them.
const driven = new WeakMap<EventStore, Map<string, DrivenRun>>();
const failures = new WeakMap<EventStore, Map<string, Failure>>();

function runsOf<T>(map: WeakMap<EventStore, Map<string, T>>, store: EventStore): Map<string, T> {
  let runs = map.get(store);
  if (runs === undefined) {
    runs = new Map();
    map.set(store, runs);
  }
  return runs;
}

/**
 * Drives `work` as run `runId` of `store` until it settles; one driver per run in this process
 * (a second is refused with a `RangeError`, so the first can still be stopped). An error the run
 * throws is kept as the task's failure (`failureOf`) for as long as its log stays as it was;
 * `keepFailure: false` leaves it to the caller (a question the client did not answer is no failure
 * of the run).
 */
export function drive(
  store: EventStore,
  runId: string,
  work: (signal: AbortSignal) => Promise<AgentResult>,
  keepFailure: (error: unknown) => boolean = () => true,
): DrivenRun {
  const runs = runsOf(driven, store);
  if (runs.has(runId))
    throw new RangeError(`run '${runId}' is already driven by this server: follow it with tasks/get`);
  runsOf(failures, store).delete(runId);
  const controller = new AbortController();
  const done = work(controller.signal);
  const ended = done.then(
    () => {
      runs.delete(runId);
    },
    async (error: unknown) => {
      if (keepFailure(error)) {
        const message = error instanceof Error ? error.message : String(error);
        const logged = await store.read(runId).then(
          (events) => events.length,
          () => undefined,
        );
        runsOf(failures, store).set(runId, { message, logged });
      }
      runs.delete(runId);
    },
  );
  const run: DrivenRun = { done, controller, startedAt: new Date().toISOString(), ended };
  runs.set(runId, run);
  return run;
}

/** The run this process drives as `runId` of `store`, if any. */
export function drivenRun(store: EventStore, runId: string): DrivenRun | undefined {
  return driven.get(store)?.get(runId);
}

/** Waits until this process drives run `runId` no more (at once when it does not). */
export async function undriven(store: EventStore, runId: string): Promise<void> {
  for (let run = drivenRun(store, runId); run !== undefined; run = drivenRun(store, runId)) await run.ended;
}

/**
 * The error run `runId` threw in this process, if its log `events` is still as it was then (the log
 * shows no end of the run, so only this process can tell why it stopped). A log that moved on since
 * (the run was taken up again, here or elsewhere) outranks it.
 */
export function failureOf(store: EventStore, runId: string, events: readonly StoredEvent[]): string | undefined {
  const failure = failures.get(store)?.get(runId);
  if (failure === undefined) return undefined;
  const moved = failure.logged !== undefined && failure.logged !== events.length;
  if (moved || events.at(-1)?.type === "run.finished") {
    failures.get(store)?.delete(runId);
    return undefined;
  }
  return failure.message;
}
