import type { Principal, StoredEvent } from "../data/index.js";
import { EventLogError, type EventStore, type RunSummary } from "../log/index.js";

/** Whose run a log is: the `owner` of its `run.started`, or `undefined` for no one's (or no log). */
export function ownerOf(events: readonly StoredEvent[]): Principal | undefined {
  const [started] = events;
  return started?.type === "run.started" ? started.owner : undefined;
}

/**
 * Whether a request from `principal` may use a run owned by `owner`: an owned run by its tenant's
 * requests only, a run of no one's by requests without a principal only. Fails closed: a request
 * with no principal never reaches an owned run, nor one with a principal a run of no one's (an
 * agent tool's child, a run from before `authorize`).
 */
export function mayUse(principal: Principal | undefined, owner: Principal | undefined): boolean {
  if (owner === undefined || principal === undefined) return owner === principal;
  return owner.tenant === principal.tenant;
}

/** The runs of `store` that a request from `principal` may see, as `store.list` summarizes them. */
export async function runsFor(store: EventStore, principal: Principal | undefined): Promise<RunSummary[]> {
  return (await store.list()).filter((summary) => mayUse(principal, summary.owner));
}

/**
 * Run `runId`'s log as a request from `principal` may read it: its events (`[]` for no log), or
 * null when the run is another's. A log that cannot be read (torn, corrupt) is still someone's:
 * whose, its intact events say, so another's broken log is null too and tells nothing, not even
 * that it is broken; the principal's own rejects with the store's `EventLogError`.
 */
export async function readOwned(
  store: EventStore,
  principal: Principal | undefined,
  runId: string,
): Promise<readonly StoredEvent[] | null> {
  let events: readonly StoredEvent[];
  try {
    events = await store.read(runId);
  } catch (error) {
    if (error instanceof EventLogError && !mayUse(principal, ownerOf(error.intact))) return null;
    throw error;
  }
  return events.length > 0 && !mayUse(principal, ownerOf(events)) ? null : events;
}
