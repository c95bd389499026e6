import type { RunEvent, StoredEvent } from "../data/index.js";
import { EVENT_LOG_SCHEMA_VERSION, logFlags } from "../data/index.js";
import { chainTip, stampEvent } from "./event-log.js";
import { runHashSeed } from "./log-hash.js";

/**
 * The stamps of a run's log as it grows: each next event gets its position, its time and its hash
 * chained to the event before (none for a log of schema 1). Pure bookkeeping: whoever writes the
 * log (a journal, a durable workflow's state) appends what it returns.
 */
export class LogStamps {
  #length: number;
  /** The hash the next event chains to; null while the log is of schema 1, whose events have none. */
  #tip: string | null;

  /**
   * `history` is the run's log so far when it goes on, or `[]` for a new run, whose log is of
   * schema `schemaVersion` (the current one unless a fork copies an older log).
   */
  constructor(runId: string, history: readonly StoredEvent[] = [], schemaVersion = EVENT_LOG_SCHEMA_VERSION) {
    this.#length = history.length;
    this.#tip =
      history.length > 0 ? chainTip(runId, history) : logFlags(schemaVersion).hashChain ? runHashSeed(runId) : null;
  }

  /** Events stamped so far. */
  get length(): number {
    return this.#length;
  }

  /** `event` stamped as the next one, at `at` (ISO 8601); it counts only once `accept`ed (it was appended). */
  next(event: RunEvent, at: string): StoredEvent {
    return stampEvent(event, this.#length, at, this.#tip);
  }

  /** Counts `stored`, the event `next` stamped, as appended. */
  accept(stored: StoredEvent): void {
    this.#length++;
    if (this.#tip !== null) this.#tip = stored.hash ?? null;
  }
}
