import type { Transcript } from "./transcript.js";
import type { Message } from "./types.js";

/**
 * What a compaction leaves the model to see of the list: the messages up to and with the task
 * (`head`), the summary of the hidden ones when there is one, and every message from `keptFrom`
 * on. The messages between are hidden, never removed: the list itself keeps them.
 */
export interface CompactedView {
  /** The index of the task: it and every message before it are always shown. */
  readonly head: number;
  /** The index of the first message shown after the head (and the summary). */
  readonly keptFrom: number;
  /** The summary shown in place of the hidden messages; null when they are dropped (`trim`). */
  readonly summary: string | null;
}

/** The words that open the summary's message, so that the model reads it as what came before. */
export const SUMMARY_OPENING = "Summary of the earlier part of this conversation (its messages are no longer shown):\n";

/** The `user` message that stands for the hidden messages in what the model is shown. */
export function summaryMessage(summary: string): Message {
  return Object.freeze({ role: "user", content: `${SUMMARY_OPENING}${summary}` });
}

/** The messages the model is shown of `transcript` under `view`, as a new frozen array (the messages are the list's own). */
export function viewMessages(transcript: Transcript, view: CompactedView): readonly Message[] {
  const { items, length } = transcript;
  const shown = items.slice(0, view.head + 1);
  if (view.summary !== null) shown.push(summaryMessage(view.summary));
  for (let index = view.keptFrom; index < length; index++) shown.push(items[index] as Message);
  return Object.freeze(shown);
}
