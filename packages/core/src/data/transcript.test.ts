import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { appendMessage, createTranscript, listView, messagesOf } from "./transcript.js";
import type { Message } from "./types.js";

const user = (content: string): Message => ({ role: "user", content });

describe("listView", () => {
  it("shows the transcript's messages as a read-only array, made without copying them", () => {
    const transcript = createTranscript([user("a"), user("b")]);
    const view = listView(transcript);
    expect(Array.isArray(view)).toBe(true);
    expect(view.length).toBe(2);
    expect(view[1]).toEqual(user("b"));
    expect([...view]).toEqual(messagesOf(transcript));
    expect(view.map((m) => m.content)).toEqual(["a", "b"]);
    expect(JSON.stringify(view)).toBe(JSON.stringify(messagesOf(transcript)));
    expect(Object.keys(view)).toEqual(["0", "1"]);
    expect(view.at(-1)).toEqual(user("b"));
    expect(view).toEqual([user("a"), user("b")]);
  });

  it("never shows a later message, though the transcripts share their backing array", () => {
    const first = createTranscript([user("a")]);
    const view = listView(first);
    const later = appendMessage(first, user("b"));
    expect(later.items).toBe(first.items);
    expect(view.length).toBe(1);
    expect(view[1]).toBeUndefined();
    expect(1 in view).toBe(false);
    expect([...view]).toEqual([user("a")]);
    expect(inspect(view)).toBe(inspect([user("a")]));
  });

  it("refuses every write, with a message that says how to get a copy", () => {
    const view = listView(createTranscript([user("a")])) as Message[];
    expect(() => view.push(user("x"))).toThrow(/read-only: copy it/);
    expect(() => {
      view[0] = user("x");
    }).toThrow(TypeError);
    expect(() => view.pop()).toThrow(TypeError);
    expect(() => Object.freeze(view)).toThrow(TypeError);
    expect(view.length).toBe(1);
  });

  it("prints as its messages in Node's inspect (console.log)", () => {
    const view = listView(createTranscript([user("a"), user("b")]));
    expect(inspect(view)).toBe(inspect([user("a"), user("b")]));
  });
});
