import { EventLogError } from "./errors.js";
import type { RunEvent, StoredEvent } from "./event-log.js";
import type { EventStore } from "./event-store.js";

/**
 * The shell's side of one run's log. It stamps and appends new events (position and time are
 * stamped here, never inside the machine's decisions), and serves the events logged before, in
 * order, so that a resumed run asks nothing twice.
 *
 * Every new event goes through one queue: it is appended, then delivered to the machine, before the
 * next one is looked at; an event whose run has ended meanwhile is dropped unlogged. So the log
 * holds exactly the events the machine processed, in the order it processed them.
 */
export class Journal {
  readonly runId: string;
  readonly #store: EventStore;
  readonly #history: readonly StoredEvent[];
  readonly #now: () => Date;
  #length: number;
  #cursor = 1;
  #queue: Promise<unknown> = Promise.resolve();
  #caughtUp = () => {};
  /** Resolves once every logged event has been served (at once for a new run). */
  readonly caughtUp: Promise<void>;

  /** `history` is the run's log so far (from `run.started`), or `[]` for a new run. */
  constructor(
    store: EventStore,
    runId: string,
    history: readonly StoredEvent[] = [],
    now: () => Date = () => new Date(),
  ) {
    this.#store = store;
    this.runId = runId;
    this.#history = history;
    this.#length = history.length;
    this.#now = now;
    this.caughtUp = new Promise((resolve) => {
      this.#caughtUp = resolve;
    });
    if (!this.replaying) this.#caughtUp();
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

  /** Whether logged events remain to be served before the run goes live. */
  get replaying(): boolean {
    return this.#cursor < this.#history.length && this.#history[this.#cursor]?.type !== "run.finished";
  }

  /** Takes the next logged event, which must be of `type` (and, for call events, for `callId`). */
  take<T extends StoredEvent["type"]>(type: T, callId?: string): Extract<StoredEvent, { type: T }> {
    const event = this.#history[this.#cursor];
    const fits = event?.type === type && (callId === undefined || ("callId" in event && event.callId === callId));
    if (!fits) {
      const wanted = callId === undefined ? type : `${type} for call '${callId}'`;
      throw new EventLogError(
        `run '${this.runId}': event ${this.#cursor} does not fit the run: expected ${wanted}, found ${event?.type ?? "the end of the log"}`,
        { runId: this.runId, position: this.#cursor, intact: this.#history.slice(0, this.#cursor) },
      );
    }
    this.#cursor++;
    if (!this.replaying) this.#caughtUp();
    return event as Extract<StoredEvent, { type: T }>;
  }
}
