import type { EventStore } from "@agentloop/core";
import { TerminalError, type WorkflowContext, type WorkflowSharedContext } from "@restatedev/restate-sdk";
import { LogStamps, type RunEvent, type StoredEvent } from "./core-port.js";
import type { RunStatus } from "./types.js";

const STATUS_KEY = "status";
const eventKey = (seq: number) => `event ${seq}`;

/**
 * A run's agentloop event log, kept from the workflow's `run` handler: every event is stamped with
 * its position, written to the workflow's state (one key per event, so `events` can read the log)
 * and mirrored into the user's store if there is one. Positions follow the order in which the
 * machine took the events, which the Restate journal fixes, so a retried execution produces the
 * same log again; the mirror skips what the store already holds and never appends twice.
 */
export class RunLog {
  readonly #ctx: WorkflowContext;
  readonly #mirror: Mirror | null;
  readonly #stamps: LogStamps;
  #status = "";
  #start: RunEvent | null = null;

  constructor(ctx: WorkflowContext, store: EventStore | undefined) {
    this.#ctx = ctx;
    this.#mirror = store === undefined ? null : new Mirror(store, ctx.key);
    this.#stamps = new LogStamps(ctx.key);
  }

  /** Events logged so far. */
  get length(): number {
    return this.#stamps.length;
  }

  /**
   * Keeps the run's first event to log just before the next one, stamped with the time of the step
   * that began the run: so the start costs no journaled step of its own.
   */
  deferStart(event: RunEvent): void {
    this.#start = event;
  }

  /** Logs the kept start, if it is not logged yet, stamped `at` (ISO 8601, journaled). */
  async logStart(at: () => string | Promise<string>): Promise<void> {
    const start = this.#start;
    if (start === null) return;
    this.#start = null;
    await this.append(start, await at());
  }

  /** Logs `event` at the next position, stamped `at` (ISO 8601, as journaled where it happened) and chained to the event before. */
  async append(event: RunEvent, at: string): Promise<StoredEvent> {
    const stored = this.#stamps.next(event, at);
    this.#stamps.accept(stored);
    this.#ctx.set(eventKey(stored.seq), stored);
    await this.#mirror?.append(stored);
    return stored;
  }

  /**
   * Keeps `status` for the `status` handler, with the durable promise each call of the current
   * reply that needs a decision has it in (by call id) for `decide`; writes only when something changed.
   */
  setStatus(status: RunStatus, decisionKeys: Readonly<Record<string, string>> = {}): void {
    const kept: KeptStatus = { ...status, decisionKeys };
    const json = JSON.stringify(kept);
    if (json === this.#status) return;
    this.#status = json;
    this.#ctx.set(STATUS_KEY, kept);
  }
}

/** The status as the `run` handler keeps it. */
export interface KeptStatus extends RunStatus {
  readonly decisionKeys: Readonly<Record<string, string>>;
}

/** The status kept by the `run` handler, or `null` before it first wrote one. */
export function readStatus(ctx: WorkflowSharedContext): Promise<KeptStatus | null> {
  return ctx.get<KeptStatus>(STATUS_KEY);
}

/** The events kept so far by the `run` handler, in order (as JSON: an unlimited budget reads `null`). */
export async function readEvents(ctx: WorkflowSharedContext): Promise<unknown[]> {
  const status = await readStatus(ctx);
  const count = status?.events ?? 0;
  const events = await Promise.all(Array.from({ length: count }, (_, seq) => ctx.get<unknown>(eventKey(seq))));
  return events.filter((event) => event !== null);
}

/**
 * Appends a run's events to a store, idempotently: on its first append in an execution it reads
 * what the store already holds, and skips every event at a position the store already has (an
 * earlier execution appended it before it died). A store that holds another run's events under
 * this id is refused with a `TerminalError`, since no retry would change it; a store that fails
 * (down, or a torn log to repair) fails the execution, which Restate retries.
 */
class Mirror {
  readonly #store: EventStore;
  readonly #runId: string;
  #held: readonly StoredEvent[] | null = null;

  constructor(store: EventStore, runId: string) {
    this.#store = store;
    this.#runId = runId;
  }

  async append(event: StoredEvent): Promise<void> {
    this.#held ??= await this.#store.read(this.#runId);
    const held = this.#held[event.seq];
    if (held === undefined) {
      await this.#store.append(this.#runId, event);
      return;
    }
    // The same event comes back with the same stamp: `at` is journaled where the event happened.
    if (held.type !== event.type || held.at !== event.at) {
      throw new TerminalError(
        `run '${this.#runId}': the event store holds another run's log under this id: at position ${event.seq} it has '${held.type}' of ${held.at}, this run '${event.type}' of ${event.at}`,
      );
    }
  }
}
