import type { AgentEvent, LifecycleEvent, Model, ModelError } from "../../data/index.js";

/**
 * A performer's answer: the event it makes, which the loop logs and sends to the machine, with only
 * what the loop cannot read from the event.
 */
export interface EventAnswer<E extends AgentEvent = AgentEvent> {
  readonly type: "event";
  readonly event: E;
  /** A failed model call's error (with `model.failed`): the run rejects with it when the failure is not retried. */
  readonly error?: ModelError;
  /** The model `prepareStep` picked (with `step.prepared`): the log keeps only its name. */
  readonly model?: Model;
  /** What the work did that the log keeps and the machine does not take (a tool's memory write), logged before `event`. */
  readonly preceding?: readonly LifecycleEvent[];
}

/** The answer of a performer that has none yet: no decision or answer was given, and the call waits. */
export interface Unanswered {
  readonly type: "unanswered";
}

/** The answer that gives the machine `event`. */
export function answerOf<E extends AgentEvent>(event: E): EventAnswer<E> {
  return { type: "event", event };
}

/** The answer of a performer that has none yet. */
export const UNANSWERED: Unanswered = Object.freeze({ type: "unanswered" });
