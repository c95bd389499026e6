import type { AgentEvent, Model, ModelError } from "../../data/index.js";
import { type AgentContext, isGivingUp } from "../../decide/index.js";
import type { ModelAnswer } from "../performers/index.js";

/** The model a request names: 0 the run's own, then the fallback models in order; undefined when it was not given. */
export function modelAt(
  model: Model,
  fallbacks: readonly Model[] | undefined,
  index: number | undefined,
): Model | undefined {
  return index === undefined || index === 0 ? model : fallbacks?.[index - 1];
}

/**
 * The event a model's answer gives the machine when the run retries (its context has a policy):
 * a reply says which model gave it (`model`), a failure is logged as it is — with the error to
 * reject with when it was the step's last attempt. Without a policy the reply is as it was and a
 * failure is thrown at once, as it always was: null then.
 */
export function attemptEvent(
  answer: ModelAnswer,
  context: AgentContext,
  model: number,
): { readonly event: AgentEvent; readonly givesUp?: ModelError } | null {
  const { event } = answer;
  if (context.retry === null) return event.type === "model.replied" ? { event } : null;
  if (event.type === "model.replied") return { event: { ...event, model } };
  return isGivingUp(context, event) ? { event, givesUp: answer.error as ModelError } : { event };
}
