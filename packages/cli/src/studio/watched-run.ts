import { messageOf } from "../cli-error.js";
import { type StoredEvent, tallyOf, waitingForDecision } from "../core-api.js";
import { RunTracer } from "../trace/run-trace.js";
import { EventChecker } from "./event-checker.js";

/** One row of the studio's list of runs. */
export interface RunRow {
  readonly runId: string;
  /** How it ended, `awaiting_approval`, `running` (no end logged yet), or `refused` (its log cannot be read). */
  readonly status: string;
  readonly task: string;
  readonly steps: number;
  readonly tokens: number;
  readonly events: number;
  /** ISO time of `run.started`, or "" for a refused log with no readable start. */
  readonly startedAt: string;
  /** Milliseconds from the first to the last logged event. */
  readonly durationMs: number;
  /** The run it was forked from. */
  readonly parent: string | null;
  /** Why the log is refused, or `null`. */
  readonly refused: string | null;
}

/**
 * A run of the store as the studio keeps it: its events folded as they arrive, checked one by one,
 * so that an appended event costs one check and one fold step, whatever the log's length. A log
 * that does not fit is kept as refused, with the reason, and is not read further.
 */
export class WatchedRun {
  readonly runId: string;
  readonly tracer: RunTracer;
  readonly #checker: EventChecker;
  #refused: string | null = null;
  #first: StoredEvent | null = null;
  #last: StoredEvent | null = null;

  constructor(runId: string) {
    this.runId = runId;
    this.tracer = new RunTracer(runId);
    this.#checker = new EventChecker(runId);
  }

  /** Why the log is refused, or `null`. */
  get refused(): string | null {
    return this.#refused;
  }

  /** Events folded so far. */
  get length(): number {
    return this.#checker.length;
  }

  /** Marks the log as refused (a line that is not JSON, a store that fails). */
  refuse(reason: string): void {
    this.#refused ??= reason;
  }

  /** Checks and folds the next value of the log; a value that does not fit refuses the log. */
  add(value: unknown): void {
    if (this.#refused !== null) return;
    try {
      const event = this.#checker.check(value);
      this.tracer.add(event);
      this.#first ??= event;
      this.#last = event;
    } catch (error) {
      this.#refused = messageOf(error);
    }
  }

  /** The run's row for the list. */
  row(): RunRow {
    const started = this.#first?.type === "run.started" ? this.#first : null;
    const fold = this.tracer.settings === null ? null : this.tracer.fold;
    const tally = fold === null ? null : tallyOf(fold.snapshot);
    const waiting = fold === null || fold.result !== null ? 0 : waitingForDecision(fold.snapshot).length;
    const status =
      this.#refused !== null ? "refused" : (fold?.result?.status ?? (waiting > 0 ? "awaiting_approval" : "running"));
    const first = Date.parse(this.#first?.at ?? "");
    const last = Date.parse(this.#last?.at ?? "");
    return {
      runId: this.runId,
      status,
      task: started?.settings.task ?? "",
      steps: tally?.steps ?? 0,
      tokens: tally?.tokens ?? 0,
      events: this.length,
      startedAt: this.#first?.at ?? "",
      durationMs: Number.isFinite(last - first) ? last - first : 0,
      parent: started?.forkedFrom?.runId ?? null,
      refused: this.#refused,
    };
  }
}
