// What every adapter does alike with its SDK's stream: count the items, hand on their deltas, and
// tell a stream that broke off from an abort. What stays with each adapter is what differs per
// SDK: how an item becomes deltas, and how the items become the SDK's one reply type (OpenAI joins
// the chunks itself, keeping the reasoning fields the SDK's helper overwrites; Anthropic takes the
// SDK's `finalMessage()`, thinking signatures included), converted as a non-streamed reply is.

import { describeThrown } from "./errors.js";
import type { SdkRequestOptions } from "./sdk-request-options.js";
import type { ModelDelta } from "./types.js";

/** What an adapter's streamed call needs besides the request body. */
export interface StreamCall<Client> {
  /** The SDK's client, as the adapter was given it. */
  readonly client: Client;
  /** The SDK's per-request options the adapter sets itself. */
  readonly requestOptions: SdkRequestOptions;
  /** The run's signal, passed to the request. */
  readonly signal: AbortSignal;
  /** Called with each piece of the reply as it arrives. */
  readonly onDelta: (delta: ModelDelta) => void;
}

/** How `readModelStream` reads one SDK's stream and reports its failures. */
export interface StreamReading<Item> extends Pick<StreamCall<unknown>, "signal" | "onDelta"> {
  /** The pieces one item of the stream carries, in order; the adapter keeps what it needs of the item. */
  readonly toDeltas: (item: Item) => Iterable<ModelDelta>;
  /** What an item is called in the error message, plural: `"chunks"`, `"events"`. */
  readonly unit: string;
  /** The adapter's error for a stream that broke off after it started (`OpenAIStreamError`...). */
  readonly StreamError: new (
    message: string,
    options: { cause: unknown },
  ) => Error;
  /** The SDK's abort error (`APIUserAbortError`), so that an abort rejects as it does without streaming. */
  readonly AbortError: new () => Error;
  /** Whether the stream had started when a failure came; before, the SDK's error passes as it came. */
  readonly started?: () => boolean;
}

/** An SDK stream that hands each item to `each` and resolves with what the SDK assembled when it ends. */
export type StreamPump<Item, Reply> = (each: (item: Item) => void) => Promise<Reply>;

/**
 * Reads a streamed model reply: hands each item's deltas to `onDelta` in arrival order and counts
 * the items. A failure once the stream has started rejects with the adapter's `StreamError`, "the
 * stream broke off after N chunks: …", the failure as `cause`; an abort rejects with the SDK's
 * `AbortError` (also when the SDK ended the stream quietly), never with the stream error. Given an
 * async iterable (an SDK `Stream`), it resolves with the number of items read; given a pump (an
 * SDK stream with events and a final promise), with what that promise resolves with.
 */
export function readModelStream<Item>(items: AsyncIterable<Item>, reading: StreamReading<Item>): Promise<number>;
export function readModelStream<Item, Reply>(
  pump: StreamPump<Item, Reply>,
  reading: StreamReading<Item>,
): Promise<Reply>;
export async function readModelStream<Item, Reply>(
  source: AsyncIterable<Item> | StreamPump<Item, Reply>,
  reading: StreamReading<Item>,
): Promise<Reply | number> {
  let items = 0;
  const each = (item: Item): void => {
    items += 1;
    for (const delta of reading.toDeltas(item)) reading.onDelta(delta);
  };
  let result: Reply | number;
  try {
    if (typeof source === "function") result = await source(each);
    else {
      for await (const item of source) each(item);
      result = items;
    }
  } catch (error) {
    if (reading.signal.aborted) throw abortError(reading.AbortError, error);
    if (reading.started?.() === false) throw error;
    throw new reading.StreamError(`the stream broke off after ${items} ${reading.unit}: ${describeThrown(error)}`, {
      cause: error,
    });
  }
  // An SDK may end an aborted stream quietly; the caller must still learn the reply never came.
  if (reading.signal.aborted) throw abortError(reading.AbortError, reading.signal.reason);
  return result;
}

function abortError(AbortError: new () => Error, thrown: unknown): Error {
  return thrown instanceof AbortError ? thrown : new AbortError();
}
