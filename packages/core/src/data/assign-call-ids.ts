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
  return claimCallIds(ids, usedCallIds(messages), messages.length, pattern);
}

/** The call ids the assistant messages of `messages` use. */
export function usedCallIds(messages: readonly Message[]): Set<string> {
  const taken = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls) taken.add(call.id);
  }
  return taken;
}

/**
 * `assignCallIds` with the ids already in use given as a set, which it extends with the ids it
 * assigns: O(calls) for a reply, however long the conversation. `position` is the index the reply
 * will take in the message list.
 */
export function claimCallIds(
  ids: readonly (string | null | undefined)[],
  taken: Set<string>,
  position: number,
  pattern: RegExp = /\S/,
): string[] {
  return ids.map((id, index) => {
    const usable = typeof id === "string" && id.trim() !== "" && pattern.test(id) && !taken.has(id);
    let assigned = usable ? id : `call_${position}_${index}`;
    // A positional id can be taken too, by a provider's id of that very shape: then count on.
    for (let n = 1; taken.has(assigned); n++) assigned = `call_${position}_${index}_${n}`;
    taken.add(assigned);
    return assigned;
  });
}
