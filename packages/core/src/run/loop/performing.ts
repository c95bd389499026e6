import { AnswerInbox } from "./answer-inbox.js";
import type { RequestInForm } from "./request-table.js";
import type { LoopAnswer, OnceWork, PromiseWork, SleepWork } from "./works.js";

/**
 * A request handed over to be performed, in the durable form its kind has (`REQUEST_TABLE`), with
 * what that form needs. `work` performs it in this process; its answer, or its rejection as a
 * `failed` answer, is what `next` gives.
 */
export type Performance = OncePerformance | PromisePerformance | SleepPerformance;

/** Work whose answer a durable engine journals once (a model call, a compaction, a tool, a check). */
export interface OncePerformance extends OnceWork {
  readonly form: "once";
  readonly request: RequestInForm<"once">;
}

/** An answer given from outside (a decision), unless `first` gives one at once (an approval policy). */
export interface PromisePerformance extends PromiseWork {
  readonly form: "promise";
  readonly request: RequestInForm<"promise">;
}

/** A wait (a retry's): the answer comes once the wait has passed. */
export interface SleepPerformance extends SleepWork {
  readonly form: "sleep";
  readonly request: RequestInForm<"sleep">;
}

/**
 * Where the run loop's work runs and its answers wait to be taken: in this process by default; a
 * durable engine brings its own, to journal each performance in its form and to hand the answers
 * back in the order its journal fixed.
 */
export interface Performing {
  /** Starts the performance; its answer comes from `next` (a rejection as a `failed` answer). */
  perform(performance: Performance): void;
  /** Queues an answer that no work gave: the cancellation, the stop, a listener's failure. */
  push(answer: LoopAnswer): void;
  /** Whether no work is in flight and no answer waits. */
  readonly idle: boolean;
  /** The next answer: at once when one waits, else once one comes. */
  next(): LoopAnswer | Promise<LoopAnswer>;
}

/** The work runs in this process, and its answers are taken in the order they come. */
export class InProcess implements Performing {
  readonly #inbox = new AnswerInbox<LoopAnswer>();
  #inFlight = 0;
  readonly #answered = (answer: LoopAnswer): void => {
    this.#inFlight--;
    this.#inbox.push(answer);
  };
  readonly #failed = (error: unknown): void => {
    this.#inFlight--;
    this.#inbox.push({ type: "failed", error });
  };

  get idle(): boolean {
    return this.#inFlight === 0 && this.#inbox.size === 0;
  }

  perform(performance: Performance): void {
    this.#inFlight++;
    performance.work().then(this.#answered, this.#failed);
  }

  push(answer: LoopAnswer): void {
    this.#inbox.push(answer);
  }

  next(): LoopAnswer | Promise<LoopAnswer> {
    return this.#inbox.next();
  }
}
