import { describe, expect, it } from "vitest";
import { adapterErrorClass, type ModelDelta, readModelStream, type StreamReading } from "../../src/adapter.js";
import { AgentloopError } from "../../src/index.js";

class SdkAbortError extends Error {
  override readonly name = "SdkAbortError";
}

class SdkApiError extends Error {
  override readonly name = "SdkApiError";
}

class ExampleStreamError extends adapterErrorClass("ExampleStreamError") {}

/** A stream whose items are words, each one a text delta. */
function reading(signal = new AbortController().signal): StreamReading<string> & { readonly deltas: ModelDelta[] } {
  const deltas: ModelDelta[] = [];
  return {
    deltas,
    signal,
    onDelta: (delta) => deltas.push(delta),
    toDeltas: (word) => (word === "" ? [] : [{ type: "text-delta", text: word }]),
    unit: "chunks",
    StreamError: ExampleStreamError,
    AbortError: SdkAbortError,
  };
}

/** Yields `words`, then throws `failure` when one is given. */
async function* words(list: readonly string[], failure?: unknown, before?: () => void): AsyncGenerator<string> {
  for (const word of list) yield word;
  before?.();
  if (failure !== undefined) throw failure;
}

describe("readModelStream", () => {
  it("hands each item's deltas on in arrival order and resolves with the number of items read", async () => {
    const read = reading();
    await expect(readModelStream(words(["Pune", "", " is", " hotter"]), read)).resolves.toBe(4);
    expect(read.deltas).toEqual([
      { type: "text-delta", text: "Pune" },
      { type: "text-delta", text: " is" },
      { type: "text-delta", text: " hotter" },
    ]);
  });

  it("a stream that breaks off rejects with the adapter's stream error, the items counted and the failure as cause", async () => {
    const cut = new SdkApiError("The server had an error");
    const read = reading();
    const error = await readModelStream(words(["Pune", " is", ""], cut), read).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ExampleStreamError);
    expect(ExampleStreamError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe("the stream broke off after 3 chunks: SdkApiError: The server had an error");
    expect((error as Error).cause).toBe(cut);
    expect(read.deltas).toHaveLength(2);
  });

  it("an abort rejects with the SDK's abort error, not the stream error, whatever the stream threw", async () => {
    const controller = new AbortController();
    const aborted = readModelStream(
      words(["Pune"], new SdkApiError("socket closed"), () => controller.abort()),
      reading(controller.signal),
    );
    const error = await aborted.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SdkAbortError);
    expect(ExampleStreamError.isInstance(error)).toBe(false);
  });

  it("an abort the SDK threw itself passes as it came", async () => {
    const controller = new AbortController();
    const own = new SdkAbortError("Request was aborted.");
    const error = await readModelStream(
      words(["Pune"], own, () => controller.abort()),
      reading(controller.signal),
    ).catch((thrown: unknown) => thrown);
    expect(error).toBe(own);
  });

  it("a stream the SDK ended quietly on an abort still rejects with the abort error", async () => {
    const controller = new AbortController();
    const quiet = readModelStream(
      words(["Pune"], undefined, () => controller.abort()),
      reading(controller.signal),
    );
    await expect(quiet).rejects.toBeInstanceOf(SdkAbortError);
  });

  it("a pump resolves with the reply the SDK assembled, its events counted in a break-off", async () => {
    const pump = (fail: boolean) => async (each: (word: string) => void) => {
      for (const word of ["Pune", " is"]) each(word);
      if (fail) throw new SdkApiError("Overloaded");
      return "Pune is";
    };
    const read = { ...reading(), unit: "events" };
    await expect(readModelStream(pump(false), read)).resolves.toBe("Pune is");
    await expect(readModelStream(pump(true), read)).rejects.toThrow(
      /^the stream broke off after 2 events: SdkApiError: Overloaded$/,
    );
  });

  it("a failure before the stream started is the SDK's error as it came", async () => {
    const refused = new SdkApiError("401 invalid x-api-key");
    const read = { ...reading(), started: () => false };
    await expect(readModelStream(words([], refused), read)).rejects.toBe(refused);
  });

  it("a delta callback that throws breaks the stream off like any other failure", async () => {
    const read = {
      ...reading(),
      onDelta: () => {
        throw new Error("listener failed");
      },
    };
    await expect(readModelStream(words(["Pune"]), read)).rejects.toThrow(
      "the stream broke off after 1 chunks: Error: listener failed",
    );
  });
});

describe("adapterErrorClass", () => {
  it("makes an AgentloopError with the given name whose isInstance knows its errors from another copy too", () => {
    const error = new ExampleStreamError("cut", { cause: 1 });
    expect(error).toBeInstanceOf(AgentloopError);
    expect(error.name).toBe("ExampleStreamError");
    expect(error.cause).toBe(1);
    const otherCopy = new (adapterErrorClass("ExampleStreamError"))("cut");
    expect(ExampleStreamError.isInstance(otherCopy)).toBe(true);
    expect(ExampleStreamError.isInstance(new (adapterErrorClass("OtherError"))("cut"))).toBe(false);
    expect(ExampleStreamError.isInstance(Object.assign(new Error("cut"), { name: "ExampleStreamError" }))).toBe(false);
  });
});
