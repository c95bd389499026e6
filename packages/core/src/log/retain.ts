import { stampEvent } from "./event-log.js";
import { EventLogError } from "./event-log-error.js";
import type { EventStore, RunLock } from "./event-store.js";
import { anchorOf } from "./run-anchor.js";

/** Which runs `retain` prunes: those that finished before `olderThan`. */
export interface RetentionPolicy {
  readonly olderThan: Date;
}

/**
 * Drops the events of every run of `store` that finished before `policy.olderThan`, each replaced
 * by one `run.anchored` event that keeps its `run.started`, the hash of its last event and the
 * state it folded to: the log still verifies (`replayRun` and the store's read check it), lists,
 * shows and resumes as a finished run, and `continueAgent` takes the conversation further from
 * it. A run is pruned under its lock: one another writer holds is left for a later sweep, as are
 * runs not finished, logs of schema 1 (no hash chain) and runs pruned already. Returns the runs it
 * pruned. Throws a `TypeError` for a store without `prune`.
 */
export async function retain(store: EventStore, policy: RetentionPolicy): Promise<{ pruned: string[] }> {
  if (typeof store.prune !== "function") {
    throw new TypeError("retain needs a store that can replace a run's events by an anchor (prune)");
  }
  const cutoff = policy.olderThan.getTime();
  if (Number.isNaN(cutoff)) throw new RangeError("olderThan must be a valid Date");
  const pruned: string[] = [];
  for (const { runId, outcome } of await store.list()) {
    if (outcome === null) continue;
    const lock = await tryAcquire(store, runId);
    // Held by another writer now: a later retain prunes it.
    if (lock === null) continue;
    try {
      if (await pruneRun(store, runId, cutoff)) pruned.push(runId);
    } finally {
      await lock?.release();
    }
  }
  return { pruned };
}

/** Prunes one run, held by its lock, when it finished before `cutoff`; whether it did. */
async function pruneRun(store: EventStore, runId: string, cutoff: number): Promise<boolean> {
  const events = await store.read(runId);
  const last = events.at(-1);
  if (last === undefined || Date.parse(last.at) >= cutoff) return false;
  const anchor = anchorOf(runId, events);
  if (typeof anchor === "string") return false;
  const stamped = stampEvent(anchor, 0, new Date().toISOString(), anchor.tip);
  await store.prune?.(runId, stamped, events.length);
  return true;
}

/** The run's lock (undefined for a store that cannot lock), or null when another writer holds it. */
async function tryAcquire(store: EventStore, runId: string): Promise<RunLock | undefined | null> {
  try {
    return await store.acquire?.(runId);
  } catch (error) {
    if (error instanceof EventLogError) return null;
    throw error;
  }
}
