import type { EventStore } from "@agentloop/core";
import { TerminalError, type WorkflowContext, type WorkflowSharedContext } from "@restatedev/restate-sdk";
import { LogStamps, type QuestionKey, type RunEvent, type StoredEvent } from "./core-port.js";
import type { RunStatus } from "./types.js";

const STATUS_KEY = "status";
const chunkKey = (index: number) => `events ${index}`;

/**
 * A run's agentloop event log, kept from the workflow's `run` handler: every event is stamped with
 * its position, mirrored into the user's store if there is one, and saved to the workflow's state
 * for `events` in chunks: once the run waits for a decision or ends, and, with `saveEvery`, every
 * that many events between. A step then costs no state write: each one is a durable journal entry
 * the server stores, and Restate's journal, not the state, is what a retried execution replays.
 * Positions follow the order in which the machine took the events, which the Restate journal
 * fixes, so a retried execution produces the same log again; the mirror skips what the store
 * already holds and never appends twice.
 */
export class RunLog {
  readonly #ctx: WorkflowContext;
  readonly #mirror: Mirror | null;
  readonly #stamps: LogStamps;
  #waits = "";
  /** Whether the last status written listed calls waiting for a decision or an answer. */
  #waited = false;
  #start: RunEvent | null = null;
  #unsaved: StoredEvent[] = [];
  #saved = 0;
  #chunks = 0;
  readonly #saveEvery: number;

  /** `saveEvery`: events kept unsaved at most while the run goes from step to step (default: until it waits or ends). */
  constructor(ctx: WorkflowContext, store: EventStore | undefined, saveEvery = Number.POSITIVE_INFINITY) {
    this.#ctx = ctx;
    this.#saveEvery = saveEvery;
    this.#mirror = store === undefined ? null : new Mirror(store, ctx.key);
    this.#stamps = new LogStamps(ctx.key);
  }

  /** Events logged so far. */
  get length(): number {
    return this.#stamps.length;
  }

  /**
   * Whether the status may need a write even while no call waits for a decision: none was written
   * yet, the last one listed calls waiting, or a chunk of events is due.
   */
  get statusDue(): boolean {
    return this.#waits === "" || this.#waited || this.#unsaved.length >= this.#saveEvery;
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
    this.#unsaved.push(stored);
    await this.#mirror?.append(stored);
    return stored;
  }

  /**
   * Keeps `status` for the `status` handler, with the durable promise each call of the current
   * reply that needs a decision or an answer has it in (by call id) for `decide` and `answer`. A
   * state write is a journal entry the server stores durably, so the status is written only when
   * what clients act on changes (the phase, the calls waiting) or events are saved (`save`, or
   * `saveEvery` waiting): between, its state, steps, tokens and running tools are those of the last write.
   */
  setStatus(status: RunStatus, keys: WaitKeys = NO_KEYS, save = false): void {
    const saved = (save || this.#unsaved.length >= this.#saveEvery) && this.#save();
    const waiting = [...status.awaitingDecision.map((call) => call.id), ...status.pendingQuestions.map((q) => q.id)];
    const waits = JSON.stringify([status.phase, waiting, keys.decisionKeys, keys.questionKeys, keys.childRuns]);
    if (!saved && waits === this.#waits) return;
    this.#waits = waits;
    this.#waited = waiting.length > 0;
    this.#ctx.set(STATUS_KEY, { ...status, events: this.#saved, chunks: this.#chunks, ...keys });
  }

  /** Saves the events logged since the last save as a chunk of their own; `false` if there were none. */
  #save(): boolean {
    if (this.#unsaved.length === 0) return false;
    this.#ctx.set(chunkKey(this.#chunks++), this.#unsaved);
    this.#saved += this.#unsaved.length;
    this.#unsaved = [];
    return true;
  }
}

/** The keys of the durable promises the calls of the current reply wait in: decisions' and answers', by call id. */
export interface WaitKeys {
  readonly decisionKeys: Readonly<Record<string, string>>;
  readonly questionKeys: Readonly<Record<string, QuestionKey>>;
  /** The children running now (each a workflow of its own), by the id of the call that runs it. */
  readonly childRuns?: Readonly<Record<string, string>>;
}

const NO_KEYS: WaitKeys = { decisionKeys: {}, questionKeys: {} };

/** The status as the `run` handler keeps it: with the chunks of saved events, and the decisions' and answers' keys. */
export interface KeptStatus extends RunStatus, WaitKeys {
  readonly chunks: number;
}

/** The status kept by the `run` handler, or `null` before it first wrote one. */
export function readStatus(ctx: WorkflowSharedContext): Promise<KeptStatus | null> {
  return ctx.get<KeptStatus>(STATUS_KEY);
}

/** The events kept so far by the `run` handler, in order (as JSON: an unlimited budget reads `null`). */
export async function readEvents(ctx: WorkflowSharedContext): Promise<unknown[]> {
  const status = await readStatus(ctx);
  const count = status?.chunks ?? 0;
  const chunks = await Promise.all(Array.from({ length: count }, (_, index) => ctx.get<unknown[]>(chunkKey(index))));
  return chunks.flatMap((chunk) => chunk ?? []);
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
