import {
  type BlobSource,
  blobRefsOf,
  chainHash,
  checkReply,
  EventLogError,
  type LogFlags,
  logFlags,
  parseEventLog,
  restoreBlobs,
  runHashSeed,
  type StoredEvent,
  startedOf,
} from "../../core-api.js";

/**
 * Checks a run's events one at a time as they are appended, with what core's `parseEventLog`
 * checks for a whole log (the first event is checked by it; later ones by their position and hash
 * chain), so that a log being written is never read again from its start. A part's bytes logged
 * by reference are read from `blobs` and checked against their hash, once per blob.
 */
export class EventChecker {
  readonly #runId: string;
  readonly #blobs: BlobSource;
  /** The blobs read so far, as base64 by SHA-256, and the media type of the parts that hold them. */
  readonly #known = new Map<string, string>();
  readonly #mediaTypes = new Map<string, string>();
  #next = 0;
  #hash: string;
  #flags: LogFlags | null = null;

  constructor(runId: string, blobs: BlobSource) {
    this.#runId = runId;
    this.#blobs = blobs;
    this.#hash = runHashSeed(runId);
  }

  /** The media type of the parts whose bytes have this SHA-256, or undefined for a blob the log does not refer to. */
  mediaTypeOf(sha256: string): string | undefined {
    return this.#mediaTypes.get(sha256);
  }

  /** The bytes of a blob the log refers to (read and checked already), as base64. */
  blob(sha256: string): string | undefined {
    return this.#known.get(sha256);
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
      const [event] = parseEventLog(this.#runId, [value], this.#blobs);
      const started = event === undefined ? undefined : startedOf([event]);
      if (event === undefined || started === undefined) throw fail("is not run.started (or run.anchored)");
      this.#flags = logFlags(started.schemaVersion);
      this.#restore(value as Record<string, unknown>, fail);
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
    const event = this.#restore(record, fail) as StoredEvent;
    this.#accept(value);
    if (event.type !== "model.replied") return event;
    const reply = checkReply(event.reply);
    if (typeof reply === "string") throw fail(`has a reply that is not valid: ${reply}`);
    return { ...event, reply };
  }

  /** The event with its parts' bytes read back (each blob once), or the refusal of a blob missing or changed. */
  #restore(record: Record<string, unknown>, fail: (problem: string) => Error): Record<string, unknown> {
    const restored = restoreBlobs(record, this.#blobs, this.#known);
    if ("problem" in restored) throw fail(restored.problem);
    for (const { ref, mediaType } of blobRefsOf(record)) this.#mediaTypes.set(ref.sha256, mediaType);
    return restored.event as Record<string, unknown>;
  }

  #accept(value: unknown): void {
    const hash = (value as { hash?: unknown }).hash;
    if (typeof hash === "string") this.#hash = hash;
    this.#next++;
  }
}
