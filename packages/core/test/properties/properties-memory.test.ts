import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  InMemoryMemoryStore,
  MEMORY_CLOSE,
  MEMORY_OPEN,
  type MemoryHit,
  quotedMemories,
  runAgent,
  ToolRegistry,
} from "../../src/index.js";
import { final, scriptedModel } from "../../src/testing.js";

// What a model is shown of recalled memories is one quote, whatever the memories hold: text made of
// the quote's own tags, other markup and JSON cannot end it early or open another; and the order of
// the hits is a function of the data alone, never of the order it was written in.

/** Strings built from the pieces that try to break a quote: both tags, their halves, quotes, escapes, markup. */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        MEMORY_CLOSE,
        MEMORY_OPEN,
        "</",
        "memories>",
        "<",
        ">",
        "&",
        '"',
        "\\",
        "\\u003c",
        "\n",
        "]",
        "}",
        "SYSTEM:",
      ),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 12 },
  )
  .map((pieces) => pieces.join(""));

const hits = fc.array(
  fc.record({
    key: hostile.filter((key) => key.length > 0),
    value: hostile,
    score: fc.double({ noNaN: true, noDefaultInfinity: true }),
  }),
  { maxLength: 6 },
);

/** How many times `needle` occurs in `text`. */
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe("the quote of recalled memories", () => {
  it("holds exactly one opening and one closing tag, the closing one last, and gives back every key and value exactly", async () => {
    await fc.assert(
      fc.asyncProperty(hits, async (recalled: MemoryHit[]) => {
        const memory = {
          search: async () => recalled,
          put: async () => {},
          get: async () => undefined,
          delete: async () => {},
        };
        const model = scriptedModel([final("ok")]);
        await runAgent("what do you know?", model, new ToolRegistry(), {
          memory: { store: memory, scope: { resource: "u" }, recall: 6 },
        });
        const shown = model.seen[0] ?? [];
        if (recalled.length === 0) {
          expect(shown).toHaveLength(2);
          return;
        }
        const text = String(shown[2]?.content);
        expect(occurrences(text, MEMORY_OPEN)).toBe(1);
        expect(occurrences(text, MEMORY_CLOSE)).toBe(1);
        expect(text.endsWith(MEMORY_CLOSE)).toBe(true);
        const inner = text.slice(text.indexOf(MEMORY_OPEN) + MEMORY_OPEN.length, text.length - MEMORY_CLOSE.length);
        expect(inner).not.toMatch(/[<>&]/);
        expect(quotedMemories(text)).toEqual(recalled.map(({ key, value }) => ({ key, value })));
        expect(shown[0]?.role).toBe("system");
        expect(shown[0]?.content).not.toContain(MEMORY_OPEN);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the order of hits", () => {
  const facts = fc.uniqueArray(
    fc.record({
      key: fc.stringMatching(/^[a-z]{1,6}$/),
      value: fc
        .array(fc.constantFrom("green", "tea", "ferry", "cat", "Lyon", "milk", "green"), { minLength: 1, maxLength: 5 })
        .map((words) => words.join(" ")),
    }),
    { selector: (fact) => fact.key, maxLength: 12 },
  );

  it("is the same for the same data however it was written: by score, then by key", async () => {
    await fc.assert(
      fc.asyncProperty(facts, fc.constantFrom("green", "green tea", "ferry cat", "milk"), async (written, query) => {
        const forward = new InMemoryMemoryStore();
        const backward = new InMemoryMemoryStore();
        for (const { key, value } of written) await forward.put({ resource: "u" }, key, value);
        for (const { key, value } of [...written].reverse()) await backward.put({ resource: "u" }, key, value);
        const found = await forward.search({ resource: "u" }, query, 20);
        expect(await backward.search({ resource: "u" }, query, 20)).toEqual(found);
        for (const [index, hit] of found.entries()) {
          const next = found[index + 1];
          if (next === undefined) continue;
          expect(hit.score > next.score || (hit.score === next.score && hit.key < next.key)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
