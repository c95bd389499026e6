import type { AgentResult, Principal } from "../data/index.js";
import type { EventStore } from "../log/index.js";

/** A run this process drives for a served request: its end, how to stop it, and whose it is. */
export interface LiveRun {
  readonly runId: string;
  readonly done: Promise<AgentResult>;
  readonly controller: AbortController;
  /** When it was asked for (ISO 8601): its start until the run logs its own. */
  readonly startedAt: string;
  /** Settles (never rejects) once the run settled and `onFailure` has been heard: this process drives it no more. */
  readonly ended: Promise<void>;
  /** The principal it runs for (`undefined`: none), known before the run has logged anything. */
  readonly owner: Principal | undefined;
}

/**
 * A map for each store from an id to a thing this process keeps of it, made empty at first use:
 * keyed by store (weakly), so every door and server serving the same store in this process (one
 * per connection, or per request) sees what the others keep. `const runsOf = perStore<LiveRun>()`.
 */
export function perStore<T>(): (store: EventStore) => Map<string, T> {
  const maps = new WeakMap<EventStore, Map<string, T>>();
  return (store) => {
    let map = maps.get(store);
    if (map === undefined) {
      map = new Map();
      maps.set(store, map);
    }
    return map;
  };
}

const runsOf = perStore<LiveRun>();

/**
 * Drives `work` as run `runId` of `store` until it settles, one driver per run in this process:
 * claimed at once (before any await), so that of two requests for one conversation the second is
 * refused (`RangeError`). `onFailure` hears the run's error before the run counts as ended.
 */
export function drive(
  store: EventStore,
  runId: string,
  owner: Principal | undefined,
  work: (signal: AbortSignal) => Promise<AgentResult>,
  onFailure: (error: unknown) => void | Promise<void> = () => {},
): LiveRun {
  const runs = runsOf(store);
  if (runs.has(runId))
    throw new RangeError(`run '${runId}' is already going in this process: follow it, or wait for its end`);
  const controller = new AbortController();
  let done: Promise<AgentResult>;
  try {
    done = work(controller.signal);
  } catch (error) {
    done = Promise.reject(error);
  }
  const ended = done.then(
    () => {
      runs.delete(runId);
    },
    async (error: unknown) => {
      try {
        await onFailure(error);
      } finally {
        runs.delete(runId);
      }
    },
  );
  const run: LiveRun = { runId, done, controller, startedAt: new Date().toISOString(), ended, owner };
  runs.set(runId, run);
  return run;
}

/** The run this process drives as `runId` of `store`, if any. */
export function liveRun(store: EventStore, runId: string): LiveRun | undefined {
  return runsOf(store).get(runId);
}

/** Waits until this process drives run `runId` no more (at once when it does not). */
export async function undriven(store: EventStore, runId: string): Promise<void> {
  for (let run = liveRun(store, runId); run !== undefined; run = liveRun(store, runId)) await run.ended;
}
