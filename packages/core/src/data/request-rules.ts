import { contentText } from "./content-part.js";
import type { Message } from "./types.js";

/**
 * Why a model adapter cannot honour one field of the request options it was given, from the
 * field's value and all the options; `undefined` when it can.
 */
export type RequestRule = (value: unknown, params: Readonly<Record<string, unknown>>) => string | undefined;

/** The rule of a field the adapter fills in itself: any value given is refused, saying `why`. */
export function ownedField(why: string): RequestRule {
  return (value) => (value === undefined ? undefined : why);
}

/** The rule of `stream`: an adapter streams by itself when the run listens to deltas. */
export const streamField: RequestRule = (value) =>
  value === undefined || value === false
    ? undefined
    : "the adapter streams by itself when the run listens to deltas (onDelta); leave `stream` out";

/** Every field of `params` that `rules` refuse, as `field: why`, in the order of the rules. */
export function requestProblems(
  params: Readonly<Record<string, unknown>>,
  rules: Readonly<Record<string, RequestRule>>,
): string[] {
  return Object.entries(rules).flatMap(([field, rule]) => {
    const why = rule(params[field], params);
    return why === undefined ? [] : [`${field}: ${why}`];
  });
}

/** The index of the first user message with no text (empty or blank), or -1. */
export function emptyUserMessage(messages: readonly Message[]): number {
  return messages.findIndex((message) => message.role === "user" && contentText(message.content).trim() === "");
}
