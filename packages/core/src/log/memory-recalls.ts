import type { MemoryScope, StoredEvent } from "../data/index.js";
import { sameScope } from "../data/index.js";
import { type EventStore, readIntact } from "./event-store.js";

/** Where a run's log recalled a scope's memories: the event's position and the keys recalled there. */
export interface MemoryRecall {
  readonly seq: number;
  readonly at: string;
  readonly keys: readonly string[];
}

/** A run whose log recalled a scope's memories, with every recall of them, in log order. */
export interface RunRecalling {
  readonly runId: string;
  readonly recalls: readonly MemoryRecall[];
}

/**
 * The runs of `store` whose logs recalled memories of `scope` (their `memory.recalled` events with
 * at least one hit), in the store's listing order: where a user's data was shown to a model, to
 * tell them before or after `MemoryStore#delete(scope)` forgets it. Reads every run's log.
 */
export async function runsRecalling(store: EventStore, scope: MemoryScope): Promise<RunRecalling[]> {
  const runs: RunRecalling[] = [];
  for (const { runId } of await store.list()) {
    const recalls = recallsOf(await readIntact(store, runId), scope);
    if (recalls.length > 0) runs.push({ runId, recalls });
  }
  return runs;
}

/** The recalls of `scope` with hits in one run's events. */
export function recallsOf(events: readonly StoredEvent[], scope: MemoryScope): MemoryRecall[] {
  const recalls: MemoryRecall[] = [];
  for (const event of events) {
    if (event.type !== "memory.recalled" || event.hits.length === 0 || !sameScope(event.scope, scope)) continue;
    recalls.push({ seq: event.seq, at: event.at, keys: event.hits.map((hit) => hit.key) });
  }
  return recalls;
}
