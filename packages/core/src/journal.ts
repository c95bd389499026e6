import type { RunEvent, StoredEvent } from "./event-log.js";
import type { EventStore } from "./event-store.js";

/**
 * The shell's side of one run's log. It stamps and appends new events: position and time are
 * stamped here, never inside the machine's decisions.
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
  #queue: Promise<unknown> = Promise.resolve();

  /** `history` is the run's log so far (from `run.started`) when it is resumed, or `[]` for a new run. */
  constructor(
    store: EventStore,
    runId: string,
    history: readonly StoredEvent[] = [],
    now: () => Date = () => new Date(),
  ) {
    this.#store = store;
    this.runId = runId;
    this.#length = history.length;
    this.#now = now;
  }

  /**
   * Queues `event`: once the events before it are done, and if `isOpen()` still holds, appends it
   * and calls `deliver`. Resolves to whether it was logged; rejects if the store fails.
   */
  commit(event: RunEvent, deliver: () => void = () => {}, isOpen: () => boolean = () => true): Promise<boolean> {
    const done = this.#queue.then(async () => {
      if (!isOpen()) return false;
      // The stamps lead each line (readable logs) and always win over any the event carries.
      const stored = Object.assign({ seq: 0, at: "" }, event, { seq: this.#length, at: this.#now().toISOString() });
      await this.#store.append(this.runId, stored);
      this.#length++;
      deliver();
      return true;
    });
    this.#queue = done.catch(() => {});
    return done;
  }
}
