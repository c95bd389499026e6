import type { OutputChecked } from "../data/index.js";
import { appendMessage } from "../data/index.js";
import type { AgentContext } from "./agent-context.js";

/**
 * The decisions on a turn's typed answer, as plain functions of context and the logged verdict:
 * whether a final reply must be checked, and what a verdict leads to. The check itself (parsing,
 * the schema, a Standard Schema's own code) is performed outside and logged as `output.checked`,
 * so replay decides the same way without running any validator again.
 */

/** Whether this turn's final reply is an answer only once it passes the `output` schema. */
export function needsOutputCheck(context: AgentContext): boolean {
  return context.output !== null;
}

/** Whether the turn has had its `outputRetries` invalid answers: the next one ends it `invalid_output`. */
export function isOutOfOutputRetries(context: AgentContext): boolean {
  return context.invalidOutputs >= context.outputRetries;
}

/** Keeps the checked answer's value for the result. */
export function acceptOutput(event: Extract<OutputChecked, { valid: true }>): Partial<AgentContext> {
  return { outputValue: { value: event.value } };
}

/** Counts an invalid answer and tells the model why in an `ERROR:` user message; the loop goes on. */
export function rejectOutput(
  context: AgentContext,
  event: Extract<OutputChecked, { valid: false }>,
): Partial<AgentContext> {
  const schema = JSON.stringify(context.output?.schema ?? {});
  const content =
    `ERROR: your answer does not match the output schema: ${event.problem}. ` +
    `Reply with only the JSON value, no other text; the answer expects ${schema}`;
  return {
    transcript: appendMessage(context.transcript, { role: "user", content }),
    invalidOutputs: context.invalidOutputs + 1,
    answer: null,
  };
}

/** Counts the last invalid answer: the turn ends `invalid_output`, its answer the last text. */
export function giveUpOutput(context: AgentContext): Partial<AgentContext> {
  return { invalidOutputs: context.invalidOutputs + 1 };
}
