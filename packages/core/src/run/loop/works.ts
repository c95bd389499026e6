import type { EventAnswer, Unanswered } from "../performers/index.js";

/**
 * What the run loop takes next: a performer's event (the run's cancellation too), none yet, a
 * child's pause, a failure, or the stop.
 */
export type LoopAnswer =
  | EventAnswer
  | Unanswered
  | { readonly type: "failed"; readonly error: unknown }
  | { readonly type: "stopped" };

/** Work whose answer a durable engine journals once (a model call, a compaction, a tool, a check). */
export interface OnceWork {
  readonly work: () => Promise<LoopAnswer>;
  /** Whether the run takes the work's failure as an answer and retries it itself (else an engine may retry the work). */
  readonly retriesItself: boolean;
}

/** An answer given from outside (a decision), unless `first` gives one at once (an approval policy). */
export interface PromiseWork {
  /** Waits in this process: `first`'s answer, or else one that comes later (a pause, then a resume). */
  readonly work: () => Promise<LoopAnswer>;
  /** Gives the answer at hand, to be journaled once, or `null` for none; absent (`null`), the value from outside is waited for at once. */
  readonly first: (() => Promise<LoopAnswer | null>) | null;
  /** The answer a value given from outside makes; throws a `TypeError` for a value of the wrong shape. */
  readonly settle: (value: unknown) => LoopAnswer;
}

/** A wait (a retry's): the answer comes once the wait has passed. */
export interface SleepWork {
  /** Waits in this process, as long as the loop chose with `Math.random`. */
  readonly work: () => Promise<LoopAnswer>;
  /** The wait in milliseconds, chosen with `random` (an engine gives its own, replayed alike). */
  readonly delayOf: (random: () => number) => number;
  /** The answer once a wait of `delayMs` has passed. */
  readonly woke: (delayMs: number) => LoopAnswer;
}
