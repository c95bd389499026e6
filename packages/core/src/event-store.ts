import { EventLogError } from "./errors.js";
import { parseEventLog, type RunOutcome, type StoredEvent } from "./event-log.js";

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
}

/**
 * Where runs' event logs are kept: append-only, one ordered log per run. `read` returns `[]` for
 * an unknown run and throws `EventLogError` (naming the run and the position, with the intact
 * events before it) for a torn or corrupt log.
 */
export interface EventStore {
  append(runId: string, event: StoredEvent): Promise<void>;
  read(runId: string): Promise<StoredEvent[]>;
  list(): Promise<RunSummary[]>;
}

/** The summary of one run's events, for `EventStore.list`. */
export function summarize(runId: string, events: readonly StoredEvent[]): RunSummary | null {
  const [started] = events;
  if (started?.type !== "run.started") return null;
  const last = events.at(-1);
  return {
    runId,
    task: started.settings.task,
    startedAt: started.at,
    events: events.length,
    outcome: last?.type === "run.finished" ? last.outcome : null,
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

/** Refuses an event that would not extend the log by exactly one position. */
export function checkAppend(runId: string, length: number, event: StoredEvent): void {
  if (event.seq !== length) {
    throw new EventLogError(`run '${runId}': cannot append event seq ${event.seq}, the log holds ${length} events`, {
      runId,
      position: event.seq,
    });
  }
}

/** An event store in memory, for tests and short-lived processes. Events are kept as JSON text, as a durable store would. */
export class MemoryEventStore implements EventStore {
  readonly #runs = new Map<string, string[]>();

  async append(runId: string, event: StoredEvent): Promise<void> {
    const log = this.#runs.get(runId) ?? [];
    checkAppend(runId, log.length, event);
    log.push(JSON.stringify(event));
    this.#runs.set(runId, log);
  }

  async read(runId: string): Promise<StoredEvent[]> {
    return parseEventLog(
      runId,
      (this.#runs.get(runId) ?? []).map((line) => JSON.parse(line) as unknown),
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
}
