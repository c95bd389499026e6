import { chainTip, stampEvent } from "./event-log.js";
import type { EventStore } from "./event-store.js";
import type { RunEvent, StoredEvent } from "./events.js";
import { EVENT_LOG_SCHEMA_VERSION, logFlags } from "./log-flags.js";
import { runHashSeed } from "./log-hash.js";

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
  #length: number;
  /** The hash the next event chains to; null while the log is of schema 1, whose events have none. */
  #tip: string | null;
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * `history` is the run's log so far when it goes on, or `[]` for a new run, whose log is of
   * schema `schemaVersion` (the current one unless a fork copies an older log).
   */
  constructor(
    store: EventStore,
    runId: string,
    history: readonly StoredEvent[] = [],
    {
      now = () => new Date(),
      schemaVersion = EVENT_LOG_SCHEMA_VERSION,
    }: { now?: () => Date; schemaVersion?: number } = {},
  ) {
    this.#store = store;
    this.runId = runId;
    this.#length = history.length;
    this.#now = now;
    this.#tip =
      history.length > 0 ? chainTip(runId, history) : logFlags(schemaVersion).hashChain ? runHashSeed(runId) : null;
  }

  /** Events logged so far. */
  get length(): number {
    return this.#length;
  }

  /**
   * Queues `event`: once the events before it are done, and if `isOpen()` still holds, appends it
   * and calls `deliver`. Resolves to whether it was logged; rejects if the store fails.
   */
  commit(event: RunEvent, deliver: () => void = () => {}, isOpen: () => boolean = () => true): Promise<boolean> {
    const done = this.#queue.then(async () => {
      if (!isOpen()) return false;
      const stored = stampEvent(event, this.#length, this.#now().toISOString(), this.#tip);
      await this.#store.append(this.runId, stored);
      this.#length++;
      if (this.#tip !== null) this.#tip = stored.hash ?? null;
      deliver();
      return true;
    });
    this.#queue = done.catch(() => {});
    return done;
  }
}
