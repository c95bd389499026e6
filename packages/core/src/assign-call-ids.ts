import type { Message } from "./types.js";

/**
 * Gives every call of a reply a non-empty id that no earlier call in the conversation uses. A
 * provider id is kept when it is usable (non-blank and matching `pattern`); an empty, missing,
 * malformed or repeated one becomes `call_<position>_<index>`, where `position` is the index the
 * reply will take in the message list and `index` the call's place in the reply. Such ids depend
 * only on the conversation, so a replayed run gets the same ones, and each call still gets exactly
 * one result.
 */
export function assignCallIds(
  ids: readonly (string | null | undefined)[],
  messages: readonly Message[],
  pattern: RegExp = /\S/,
): string[] {
  const taken = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls) taken.add(call.id);
  }
  const position = messages.length;
  return ids.map((id, index) => {
    const usable = typeof id === "string" && id.trim() !== "" && pattern.test(id) && !taken.has(id);
    const assigned = usable ? id : `call_${position}_${index}`;
    taken.add(assigned);
    return assigned;
  });
}
