import { tokensOfLength } from "./count-tokens.js";
import type { Message } from "./types.js";

/**
 * The append-only message list with the length of its JSON kept up to date, so that the
 * prompt estimate costs O(1) per step instead of re-serializing the whole history.
 *
 * Snapshots share one backing array: a transcript is the first `length` items of `items`.
 * Appending to the newest transcript pushes in place (O(1)); appending to an older one
 * (a fork, or replay from an earlier snapshot) copies its prefix first, so no transcript
 * ever sees another's messages. Items are frozen: messages are never edited.
 */
export interface Transcript {
  readonly items: readonly Message[];
  readonly length: number;
  /** Sum of `JSON.stringify(message).length` over the first `length` items. */
  readonly chars: number;
}

/** A transcript holding `messages`, copied and frozen. */
export function createTranscript(messages: readonly Message[]): Transcript {
  return messages.reduce(appendMessage, { items: [], length: 0, chars: 0 });
}

/** Returns the transcript with `message` appended; never changes what `transcript` shows. */
export function appendMessage(transcript: Transcript, message: Message): Transcript {
  const items = (
    transcript.items.length === transcript.length ? transcript.items : transcript.items.slice(0, transcript.length)
  ) as Message[];
  items.push(Object.freeze(message));
  return { items, length: transcript.length + 1, chars: transcript.chars + JSON.stringify(message).length };
}

/** The messages of `transcript`; the shared array itself when nothing follows them (no copy). */
export function messagesOf(transcript: Transcript): readonly Message[] {
  return transcript.items.length === transcript.length
    ? transcript.items
    : transcript.items.slice(0, transcript.length);
}

/** Equals `countTokens(messagesOf(transcript))`, computed from the kept length: JSON adds `[`, `]` and commas. */
export function transcriptTokens(transcript: Transcript): number {
  return tokensOfLength(transcript.chars + 2 + Math.max(0, transcript.length - 1));
}
