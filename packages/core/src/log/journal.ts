import type { RunEvent, StoredEvent } from "../data/index.js";
import { EVENT_LOG_SCHEMA_VERSION } from "../data/index.js";
import type { EventStore } from "./event-store.js";
import { LogStamps } from "./log-stamps.js";

/** How a journal stamps, and who hears of each event it logged. */
export interface JournalOptions {
  readonly now?: () => Date;
  readonly schemaVersion?: number;
  /** Hears each event once it is appended, as stored; if it throws, `commit` rejects with that error. */
  readonly onLogged?: ((event: StoredEvent) => void) | undefined;
}

/**
 * The one writer of a run's log. It stamps and appends new events: position, time and the hash
 * chain are stamped here, never inside the machine's decisions.
 *
 * Every new event goes through one queue: it is appended, then delivered to the machine, before the
 * next one is looked at; an event whose run has ended meanwhile is dropped unlogged. So the log
 * holds exactly the events the machine processed, in the order it processed them.
 */
export class Journal {
  readonly runId: string;
  readonly #store: EventStore;
  readonly #now: () => Date;
  readonly #stamps: LogStamps;
  readonly #onLogged: ((event: StoredEvent) => void) | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * `history` is the run's log so far when it goes on, or `[]` for a new run, whose log is of
   * schema `schemaVersion` (the current one unless a fork copies an older log).
   */
  constructor(
    store: EventStore,
    runId: string,
    history: readonly StoredEvent[] = [],
    { now = () => new Date(), schemaVersion = EVENT_LOG_SCHEMA_VERSION, onLogged }: JournalOptions = {},
  ) {
    this.#store = store;
    this.runId = runId;
    this.#now = now;
    this.#stamps = new LogStamps(runId, history, schemaVersion);
    this.#onLogged = onLogged;
  }

  /** Events logged so far. */
  get length(): number {
    return this.#stamps.length;
  }

  /**
   * Queues `event`: once the events before it are done, and if `isOpen()` still holds, appends it
   * and calls `deliver`. Resolves to whether it was logged; rejects if the store fails.
   */
  commit(event: RunEvent, deliver: () => void = () => {}, isOpen: () => boolean = () => true): Promise<boolean> {
    const done = this.#queue.then(async () => {
      if (!isOpen()) return false;
      const stored = this.#stamps.next(event, this.#now().toISOString());
      await this.#store.append(this.runId, stored);
      this.#stamps.accept(stored);
      this.#onLogged?.(stored);
      deliver();
      return true;
    });
    this.#queue = done.catch(() => {});
    return done;
  }
}
