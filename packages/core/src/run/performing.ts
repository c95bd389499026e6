import type { AgentEvent, AgentRequest } from "../data/index.js";
import { AnswerInbox } from "./answer-inbox.js";
import type { ApproverAnswer } from "./ask-approver.js";
import type { ModelAnswer } from "./ask-model.js";
import type { ChildPaused } from "./child-calls.js";
import type { CompactionAnswer } from "./compact-context.js";
import type { ToolAnswer } from "./run-tool.js";
import type { CheckAnswer } from "./turn-checks.js";
import type { RetryWaited } from "./wait-retry.js";

/** What the run loop takes next: a performer's answer, the run's cancellation, a failure, or the stop. */
export type LoopAnswer =
  | ModelAnswer
  | CompactionAnswer
  | ToolAnswer
  | ChildPaused
  | ApproverAnswer
  | RetryWaited
  | CheckAnswer
  | { readonly type: "cancelled"; readonly event: Extract<AgentEvent, { type: "run.cancelled" }> }
  | { readonly type: "failed"; readonly error: unknown }
  | { readonly type: "stopped" };

/**
 * Where the run loop's work runs and its answers wait to be taken: in this process by default; a
 * durable engine brings its own, to journal each performance and to hand the answers back in the
 * order its journal fixed.
 */
export interface Performing {
  /** Starts `work`, the performer that answers `request`; its answer comes from `next` (a rejection as a `failed` answer). */
  perform(request: AgentRequest, work: () => Promise<LoopAnswer>): void;
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

  perform(_request: AgentRequest, work: () => Promise<LoopAnswer>): void {
    this.#inFlight++;
    work().then(this.#answered, this.#failed);
  }

  push(answer: LoopAnswer): void {
    this.#inbox.push(answer);
  }

  next(): LoopAnswer | Promise<LoopAnswer> {
    return this.#inbox.next();
  }
}
