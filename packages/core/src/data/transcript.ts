import { jsonChars, tokensOfLength } from "./count-tokens.js";
import { copyFrozenJson, deepFreeze } from "./frozen-json.js";
import type { Message } from "./types.js";

/**
 * The append-only message list with the length of its JSON kept up to date, so that the
 * prompt estimate costs O(1) per step instead of re-serializing the whole history.
 *
 * Transcripts share one backing array: a transcript is the first `length` items of `items`.
 * Appending to the newest transcript pushes in place (O(1)); appending to an older one (a fork,
 * or replay from an earlier snapshot) copies its prefix first, so no transcript ever sees
 * another's messages. Messages are deep-frozen: they are never edited. `JSON.stringify` of a
 * transcript gives its own messages only.
 */
export class Transcript {
  /** The shared backing array; only the first `length` items belong to this transcript. */
  readonly items: readonly Message[];
  readonly length: number;
  /** Sum of `messageChars(message)` over the first `length` items. */
  readonly chars: number;

  constructor(items: readonly Message[], length: number, chars: number) {
    this.items = items;
    this.length = length;
    this.chars = chars;
  }

  toJSON(): readonly Message[] {
    return messagesOf(this);
  }
}

/** A transcript holding `messages`. */
export function createTranscript(messages: readonly Message[]): Transcript {
  return messages.reduce(appendMessage, new Transcript([], 0, 0));
}

/** Returns the transcript with `message` (deep-frozen) appended; never changes what `transcript` shows. */
export function appendMessage(transcript: Transcript, message: Message): Transcript {
  return append(transcript, deepFreeze(message), messageChars(message));
}

/**
 * Like `appendMessage`, with a copy of `message` made from its JSON, so that the list shares
 * nothing with whoever built the message (a model's reply). The copy is the appended item.
 */
export function appendCopy(transcript: Transcript, message: Message): Transcript {
  const json = JSON.stringify(message);
  // Plain JSON data (the usual reply) is copied directly, and parts the driver copied already are
  // kept as they are; anything JSON would change (undefined, NaN, a Date, a toJSON) takes the
  // round trip, so the copy is always what the log will hold.
  const copy = (copyFrozenJson(message, true) ?? deepFreeze(JSON.parse(json))) as Message;
  return append(transcript, copy, typeof copy.content === "string" ? json.length : messageChars(copy));
}

function append(transcript: Transcript, message: Message, chars: number): Transcript {
  const items = (
    transcript.items.length === transcript.length ? transcript.items : transcript.items.slice(0, transcript.length)
  ) as Message[];
  items.push(message);
  return new Transcript(items, transcript.length + 1, transcript.chars + chars);
}

/** The transcript without its last message (of one that has one); the message stays in the backing array for the others. */
export function withoutLast(transcript: Transcript): Transcript {
  const chars = messageChars(lastMessage(transcript));
  return new Transcript(transcript.items, transcript.length - 1, transcript.chars - chars);
}

/** The last message of a transcript that has one. */
export function lastMessage(transcript: Transcript): Message {
  return transcript.items[transcript.length - 1] as Message;
}

/** The messages of `transcript`, as a new array (the messages themselves are frozen): later appends never show in it. */
export function messagesOf(transcript: Transcript): Message[] {
  return transcript.items.slice(0, transcript.length);
}

/**
 * The messages of `transcript` as a read-only array view, made in O(1): what the model is shown.
 * It is an array to `Array.isArray`, reads, iteration, `map`, spread and `JSON.stringify`, and
 * later appends never show in it; writing to it throws. Being a view, it cannot be given to
 * `structuredClone` (copy it first: `[...messages]`).
 */
export function listView(transcript: Transcript): readonly Message[] {
  const { items, length } = transcript;
  const refuse = (): never => {
    throw new TypeError("the message list is read-only: copy it ([...messages]) to change a copy");
  };
  // An empty array as the target keeps `Array.isArray` true; `inspect` shows the messages, not it.
  const target: Message[] = [];
  Object.defineProperty(target, Symbol.for("nodejs.util.inspect.custom"), {
    value: () => items.slice(0, length),
    configurable: true,
  });
  return new Proxy(target, {
    get(base, key, receiver) {
      if (key === "length") return length;
      const at = indexOf(key);
      if (at === null) return Reflect.get(base, key, receiver);
      return at < length ? items[at] : undefined;
    },
    has(base, key) {
      if (key === "length") return true;
      const at = indexOf(key);
      return at === null ? Reflect.has(base, key) : at < length;
    },
    ownKeys: () => [...Array.from({ length }, (_, at) => String(at)), "length"],
    getOwnPropertyDescriptor(base, key) {
      if (key === "length") return { value: length, writable: true, enumerable: false, configurable: false };
      const at = indexOf(key);
      if (at === null) return Reflect.getOwnPropertyDescriptor(base, key);
      return at < length ? { value: items[at], writable: false, enumerable: true, configurable: true } : undefined;
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
    preventExtensions: refuse,
  });
}

/** The array index a property key names (`"0"`, `"17"`), or null for any other key. */
function indexOf(key: string | symbol): number | null {
  if (typeof key !== "string" || key === "" || key.length > 15) return null;
  const n = Number(key);
  return Number.isSafeInteger(n) && n >= 0 && String(n) === key ? n : null;
}

/**
 * What a message adds to the prompt estimate, in characters: its JSON's length, with each image or
 * file part counted by its token estimate (`jsonChars`).
 */
export function messageChars(message: Message): number {
  return typeof message.content === "string" ? JSON.stringify(message).length : jsonChars(message);
}

/** Equals `countTokens(messagesOf(transcript))`, computed from the kept length: JSON adds `[`, `]` and commas. */
export function transcriptTokens(transcript: Transcript): number {
  return tokensOfLength(transcript.chars + 2 + Math.max(0, transcript.length - 1));
}
