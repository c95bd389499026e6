import { contentText, type Principal } from "../data/index.js";
import { loggedEvent } from "./blobs.js";
import { parseEventLog, type RunOutcome, type StoredEvent } from "./event-log.js";
import { EventLogError } from "./event-log-error.js";
import { startedOf } from "./run-anchor.js";
import { MemorySpendLedger, type SpendLedger } from "./spend-ledger.js";

/** One run as a store lists it, without replaying it. */
export interface RunSummary {
  readonly runId: string;
  readonly task: string;
  /** When `run.started` was logged (ISO 8601). */
  readonly startedAt: string;
  /** Events logged so far. */
  readonly events: number;
  /** How the run ended; `null` while it runs, or when it was interrupted. */
  readonly outcome: RunOutcome | null;
  /** Whose run it is, when it was started for a served request's principal (absent: no one's). */
  readonly owner?: Principal;
}

/** The exclusive right to append to one run, held until `release` resolves; releasing twice is harmless. */
export interface RunLock {
  readonly runId: string;
  release(): Promise<void>;
}

/**
 * Where runs' event logs are kept: append-only, one ordered log per run. `read` returns `[]` for
 * an unknown run and throws `EventLogError` (naming the run and the position, with the intact
 * events before it) for a torn or corrupt log. Each event comes back with its keys in the order
 * they were written. `acquire`, where a store has it, gives one writer the run across store objects
 * and processes until released: another `acquire`, or an `append` through another store object,
 * meanwhile rejects with an `EventLogError` that says who holds it.
 */
export interface EventStore {
  append(runId: string, event: StoredEvent): Promise<void>;
  read(runId: string): Promise<StoredEvent[]>;
  list(): Promise<RunSummary[]>;
  acquire?(runId: string): Promise<RunLock>;
  /**
   * Replaces the whole log of run `runId`, which holds `length` events, by `anchor` (a
   * `run.anchored` at seq 0, which `retain` makes), at once: a reader meets the old log or the new
   * one, never a part of either, and the next append is at seq 1. Rejects with an `EventLogError`,
   * changing nothing, when the log holds another number of events or another writer holds the run.
   * The blobs the anchor refers to are kept.
   */
  prune?(runId: string, anchor: StoredEvent, length: number): Promise<void>;
  /**
   * Calls `onChange(runId)` each time events of a run are committed, by this process or another,
   * until the returned handle is closed; absent: a reader looks again to see a log grow (a served
   * turn followed from another process polls).
   */
  watch?(onChange: (runId: string) => void): Promise<{ close(): Promise<void> }>;
  /** Where owners' spending across runs is kept, for spending ceilings (a served agent's `tenantBudget`); absent: the store keeps none. */
  readonly spending?: SpendLedger;
}

/** Runs `work` holding run `runId` of `store`, when the store can lock (`acquire`): one writer per run. */
export async function holding<T>(store: EventStore, runId: string, work: () => Promise<T>): Promise<T> {
  const lock = await store.acquire?.(runId);
  try {
    return await work();
  } finally {
    await lock?.release();
  }
}

/** The summary of one run's events, for `EventStore.list`. */
export function summarize(runId: string, events: readonly StoredEvent[]): RunSummary | null {
  const started = startedOf(events);
  if (started === undefined) return null;
  const last = events.at(-1);
  return {
    runId,
    task: contentText(started.settings.task),
    startedAt: started.at,
    events: events.length,
    outcome: last?.type === "run.finished" || last?.type === "run.anchored" ? last.outcome : null,
    ...(started.owner === undefined ? {} : { owner: started.owner }),
  };
}

/** A run's events, or the intact ones before a broken entry: what `list` summarizes. */
export async function readIntact(store: EventStore, runId: string): Promise<readonly StoredEvent[]> {
  try {
    return await store.read(runId);
  } catch (error) {
    if (error instanceof EventLogError) return error.intact;
    throw error;
  }
}

/**
 * The row a store's `repair` drops, given `error` from reading a run's `rows` (one per event): the
 * last row, when the error is about it alone (every row before it intact), as a torn last write
 * leaves it. Any other error is thrown again: a log broken elsewhere is not repaired.
 */
export function lastBrokenRow<Row>(error: unknown, rows: readonly Row[]): Row {
  const last = rows.length - 1;
  const broken = rows[last];
  if (!(error instanceof EventLogError) || error.position !== last || error.intact.length !== last || !broken) {
    throw error;
  }
  return broken;
}

/** Refuses an anchor that is not a `run.anchored` at seq 0, or a log that holds another number of events than `expected`. */
export function checkPrune(runId: string, length: number, expected: number, anchor: StoredEvent): void {
  if (anchor.type !== "run.anchored" || anchor.seq !== 0) {
    throw new EventLogError(
      `run '${runId}': a log is pruned to a run.anchored at seq 0, not a ${anchor.type} at ${anchor.seq}`,
      {
        runId,
        position: 0,
      },
    );
  }
  if (length !== expected) {
    throw new EventLogError(`run '${runId}': cannot prune ${expected} events, the log holds ${length}`, {
      runId,
      position: length,
    });
  }
}

/** Refuses an event that would not extend the log by exactly one position. */
export function checkAppend(runId: string, length: number, event: StoredEvent): void {
  if (event.seq !== length) {
    throw new EventLogError(`run '${runId}': cannot append event seq ${event.seq}, the log holds ${length} events`, {
      runId,
      position: event.seq,
    });
  }
}

/**
 * An event store in memory, for tests and short-lived processes. Events are kept as JSON text, as
 * a durable store would, and a part's bytes once per run by their hash (a copy of them). `acquire`
 * is exclusive among the callers of this object.
 */
export class MemoryEventStore implements EventStore {
  readonly #runs = new Map<string, string[]>();
  readonly #blobs = new Map<string, Map<string, Uint8Array>>();
  readonly #locks = new Map<string, string>();
  /** Owners' spending, in this process's memory. */
  readonly spending: SpendLedger = new MemorySpendLedger();

  async append(runId: string, event: StoredEvent): Promise<void> {
    const log = this.#runs.get(runId) ?? [];
    checkAppend(runId, log.length, event);
    const logged = loggedEvent(event);
    const blobs = this.#blobs.get(runId) ?? new Map<string, Uint8Array>();
    for (const [sha256, bytes] of logged.blobs) if (!blobs.has(sha256)) blobs.set(sha256, bytes.slice());
    if (blobs.size > 0) this.#blobs.set(runId, blobs);
    log.push(JSON.stringify(logged.event));
    this.#runs.set(runId, log);
  }

  async read(runId: string): Promise<StoredEvent[]> {
    const blobs = this.#blobs.get(runId);
    return parseEventLog(
      runId,
      (this.#runs.get(runId) ?? []).map((line) => JSON.parse(line) as unknown),
      { read: (sha256) => blobs?.get(sha256), where: `the blobs this MemoryEventStore holds for run '${runId}'` },
    );
  }

  async list(): Promise<RunSummary[]> {
    const summaries: RunSummary[] = [];
    for (const runId of this.#runs.keys()) {
      const summary = summarize(runId, await readIntact(this, runId));
      if (summary !== null) summaries.push(summary);
    }
    return summaries;
  }

  async prune(runId: string, anchor: StoredEvent, length: number): Promise<void> {
    const log = this.#runs.get(runId) ?? [];
    checkPrune(runId, log.length, length, anchor);
    const logged = loggedEvent(anchor);
    const blobs = this.#blobs.get(runId) ?? new Map<string, Uint8Array>();
    for (const [sha256, bytes] of logged.blobs) if (!blobs.has(sha256)) blobs.set(sha256, bytes.slice());
    if (blobs.size > 0) this.#blobs.set(runId, blobs);
    this.#runs.set(runId, [JSON.stringify(logged.event)]);
  }

  async acquire(runId: string): Promise<RunLock> {
    const since = this.#locks.get(runId);
    if (since !== undefined) {
      throw new EventLogError(
        `run '${runId}' is being written elsewhere: by another caller of this MemoryEventStore since ${since}; wait until that run returns`,
        { runId, position: 0 },
      );
    }
    const mine = new Date().toISOString();
    this.#locks.set(runId, mine);
    let held = true;
    return {
      runId,
      release: async () => {
        if (held) this.#locks.delete(runId);
        held = false;
      },
    };
  }
}
