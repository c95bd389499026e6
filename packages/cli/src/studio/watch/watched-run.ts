import { messageOf } from "../../cli-error.js";
import { type BlobSource, contentText, type Principal, type StoredEvent, startedOf } from "../../core-api.js";
import { type ViewStatus, viewStatus } from "../../trace/run-status.js";
import { type RunTrace, RunTracer } from "../../trace/run-trace.js";
import { EventChecker } from "./event-checker.js";

/** One row of the studio's list of runs. */
export interface RunRow {
  readonly runId: string;
  /** Its status in every view (`viewStatus`): how it ended, `awaiting_approval`, `model_failed`, `unfinished` or `refused`. */
  readonly status: ViewStatus;
  readonly task: string;
  readonly steps: number;
  readonly tokens: number;
  /** USD the run spent, as its logged end records it; null when it was not priced, or has not ended. */
  readonly cost: number | null;
  readonly events: number;
  /** ISO time of `run.started`, or "" for a refused log with no readable start. */
  readonly startedAt: string;
  /** Milliseconds from the first to the last logged event. */
  readonly durationMs: number;
  /** The run it was forked from. */
  readonly parent: string | null;
  /** For an agent tool's child run: the run that called it, and the call. */
  readonly calledBy: { readonly runId: string; readonly callId: string } | null;
  /** Why the log is refused, or `null`. */
  readonly refused: string | null;
}

/**
 * A run of the store as the studio keeps it: its events checked one by one as they arrive (so an
 * appended event costs one check, whatever the log's length), and folded through the machine in
 * slices while the studio is idle, or at once when the run is looked at closely (its page, or the
 * row of a run that has not ended): a finished run's row comes from its logged end. A log that does not fit is kept as refused, with the
 * reason, and is not read further.
 */
export class WatchedRun {
  readonly runId: string;
  readonly #checker: EventChecker;
  readonly #events: StoredEvent[] = [];
  #tracer: RunTracer | null = null;
  /** Events the tracer has folded. */
  #folded = 0;
  #refused: string | null = null;

  constructor(runId: string, blobs: BlobSource) {
    this.runId = runId;
    this.#checker = new EventChecker(runId, blobs);
  }

  /** The media type of the parts whose bytes have this SHA-256; undefined for a blob the log does not refer to. */
  mediaTypeOf(sha256: string): string | undefined {
    return this.#checker.mediaTypeOf(sha256);
  }

  /** The bytes of a blob the log refers to, read and checked against their hash when the event was. */
  blob(sha256: string): Uint8Array {
    return Buffer.from(this.#checker.blob(sha256) ?? "", "base64");
  }

  /** Whose run it is (the `owner` of its `run.started`): `undefined` for no one's, or before its start is read. */
  get owner(): Principal | undefined {
    return startedOf(this.#events)?.owner;
  }

  /** For an agent tool's child run: the run that called it, and the call (from its `run.started`). */
  get calledBy(): { readonly runId: string; readonly callId: string } | null {
    const parent = startedOf(this.#events)?.parent;
    if (parent === undefined) return null;
    return { runId: parent.runId, callId: parent.callId };
  }

  /** Why the log is refused, or `null`. */
  get refused(): string | null {
    return this.#refused;
  }

  /** Events checked so far. */
  get length(): number {
    return this.#events.length;
  }

  /** Marks the log as refused (a line that is not JSON, a store that fails). */
  refuse(reason: string): void {
    this.#refused ??= reason;
  }

  /** Checks the next value of the log (and folds it, once the run is folded); a value that does not fit refuses the log. */
  add(value: unknown): void {
    if (this.#refused !== null) return;
    try {
      const event = this.#checker.check(value);
      this.#events.push(event);
      if (this.#tracer !== null && this.#folded === this.#events.length - 1) this.#foldSome(1);
    } catch (error) {
      this.#refused = messageOf(error);
    }
  }

  /** The run folded through the machine, or `null` before its start or when its log is refused. */
  trace(): RunTrace | null {
    const tracer = this.#fold();
    if (tracer === null || this.#refused !== null) return null;
    const trace = tracer.trace();
    // A copy: the page is drawn over several turns of the event loop while new events are folded.
    return { ...trace, entries: [...trace.entries], visits: new Map(trace.visits), taken: new Map(trace.taken) };
  }

  /** Whether every event is folded (or the log is refused). */
  get folded(): boolean {
    return this.#refused !== null || this.#folded === this.#events.length;
  }

  /** Folds the run now, if it is not yet: a log the machine refuses is found here. */
  fold(): void {
    this.#fold();
  }

  /** Folds up to `limit` more events (a slice of a long log, folded while the studio is idle). */
  foldSome(limit: number): void {
    this.#foldSome(limit);
  }

  #fold(): RunTracer | null {
    this.#foldSome(Number.POSITIVE_INFINITY);
    return this.#tracer;
  }

  #foldSome(limit: number): void {
    if (this.#refused !== null || this.#events.length === 0) return;
    this.#tracer ??= new RunTracer(this.runId);
    const end = Math.min(this.#events.length, this.#folded + limit);
    try {
      for (; this.#folded < end; this.#folded++) this.#tracer.add(this.#events[this.#folded] as StoredEvent);
    } catch (error) {
      this.#refused = messageOf(error);
    }
  }

  /** The run's row for the list. */
  row(): RunRow {
    const first = this.#events[0];
    const last = this.#events.at(-1);
    const started = startedOf(this.#events) ?? null;
    const span = Date.parse(last?.at ?? "") - Date.parse(first?.at ?? "");
    return {
      runId: this.runId,
      ...this.#state(last),
      task: started == null ? "" : contentText(started.settings.task),
      cost: this.#refused === null && last?.type === "run.finished" ? (last.outcome.cost ?? null) : null,
      events: this.length,
      startedAt: first?.at ?? "",
      durationMs: Number.isFinite(span) ? span : 0,
      parent: started?.forkedFrom?.runId ?? null,
      calledBy: this.calledBy,
      refused: this.#refused,
    };
  }

  #state(last: StoredEvent | undefined): { status: ViewStatus; steps: number; tokens: number } {
    if (this.#refused === null && last?.type === "run.finished") {
      return {
        status: viewStatus({ ended: last.outcome.status }),
        steps: last.outcome.steps,
        tokens: last.outcome.tokens,
      };
    }
    const tracer = this.#fold();
    if (this.#refused !== null) return { status: viewStatus({ refused: this.#refused }), steps: 0, tokens: 0 };
    if (tracer === null) return { status: "unfinished", steps: 0, tokens: 0 };
    const { fold, settings } = tracer;
    if (settings === null) return { status: "unfinished", steps: 0, tokens: 0 };
    const { steps, tokens, waiting } = fold.position;
    const status = viewStatus({ result: fold.result, waiting, state: fold.state, settings, last });
    return { status, steps, tokens };
  }
}
