import {
  chainHash,
  checkReply,
  EventLogError,
  type LogFlags,
  logFlags,
  parseEventLog,
  runHashSeed,
  type StoredEvent,
} from "../../core-api.js";

/**
 * Checks a run's events one at a time as they are appended, with what core's `parseEventLog`
 * checks for a whole log (the first event is checked by it; later ones by their position and hash
 * chain), so that a log being written is never read again from its start.
 */
export class EventChecker {
  readonly #runId: string;
  #next = 0;
  #hash: string;
  #flags: LogFlags | null = null;

  constructor(runId: string) {
    this.#runId = runId;
    this.#hash = runHashSeed(runId);
  }

  /** Events checked so far. */
  get length(): number {
    return this.#next;
  }

  /** The next event of the log, decoded as `read` decodes it; throws `EventLogError` when it does not fit. */
  check(value: unknown): StoredEvent {
    const position = this.#next;
    const fail = (problem: string) =>
      new EventLogError(`run '${this.#runId}': event ${position} ${problem}`, { runId: this.#runId, position });
    if (position === 0) {
      const [event] = parseEventLog(this.#runId, [value]);
      if (event === undefined || event.type !== "run.started") throw fail("is not run.started");
      this.#flags = logFlags(event.schemaVersion);
      this.#accept(value);
      return event;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw fail("is not a JSON object");
    const record = value as Record<string, unknown>;
    if (record.seq !== position) throw fail(`has seq ${JSON.stringify(record.seq)}, expected ${position}`);
    if (typeof record.type !== "string") throw fail("has no type");
    if (this.#flags?.hashChain) {
      const { hash, ...rest } = record;
      if (hash !== chainHash(this.#hash, JSON.stringify(rest))) throw fail("does not match its hash");
    }
    this.#accept(value);
    const event = value as StoredEvent;
    if (event.type !== "model.replied") return event;
    const reply = checkReply(event.reply);
    if (typeof reply === "string") throw fail(`has a reply that is not valid: ${reply}`);
    return { ...event, reply };
  }

  #accept(value: unknown): void {
    const hash = (value as { hash?: unknown }).hash;
    if (typeof hash === "string") this.#hash = hash;
    this.#next++;
  }
}
