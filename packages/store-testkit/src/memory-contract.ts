import { InMemoryMemoryStore, type MemoryEmbed, type MemoryScope, type MemoryStore } from "@agentloop/core";
import { afterEach, describe, expect, it } from "vitest";

/** A fresh, empty memory store under test (with `embed` when given one), and how to let go of it. */
export interface MemoryHarness {
  readonly store: MemoryStore;
  /** A new store object over the same storage (a durable store gives it): what was written must be there, vectors included. */
  reopen?(): MemoryStore;
  /** Closes every store object the harness opened and removes its files. */
  close?(): void | Promise<void>;
}

/** Opens a fresh harness; `embed`, when given, makes the store's search semantic. */
export type OpenMemoryStore = (options: { readonly embed?: MemoryEmbed }) => MemoryHarness | Promise<MemoryHarness>;

const ALICE: MemoryScope = { resource: "alice" };
const BOB: MemoryScope = { resource: "bob" };
const ALICE_THREAD: MemoryScope = { thread: "alice" };

// Text that trips up naive storage: quotes, JSON, a newline, an emoji, SQL, a closing tag.
const AWKWARD = 'line one\nline "two" 🌡️ {"celsius":30} \'; DROP TABLE memories; -- </memories>';

/** Facts whose words overlap, so that scores differ, tie, and need the key to break the tie. */
export const MEMORY_FACTS: readonly (readonly [string, string])[] = [
  ["colour", "Alice likes the colour green"],
  ["drink", "Alice drinks green tea every morning"],
  ["pet", "Alice has a cat called Miso"],
  ["city", "Alice lives in Lyon"],
  ["tie-2", "ferry timetable"],
  ["tie-1", "ferry timetable"],
  ["tea", "Tea: oolong, never with milk"],
  ["unicode", "Crème brûlée is her favourite — ÉCLAIRS too"],
];

const QUERIES = ["green", "What does Alice drink in the morning?", "ferry", "tea", "CRÈME", "nothing matches zzz", ""];

/**
 * A stub embedder: a fixed vector per text from its letters, the same on every machine, counting
 * its calls, so that a test can tell how often a store embeds.
 */
export function letterEmbedder(): MemoryEmbed & { readonly calls: string[] } {
  const calls: string[] = [];
  const embed = (text: string): number[] => {
    calls.push(text);
    const vector = new Array<number>(8).fill(0);
    for (const char of text.toLowerCase()) {
      const code = char.codePointAt(0) ?? 0;
      if (code >= 97 && code <= 122) vector[(code - 97) % 8] = (vector[(code - 97) % 8] ?? 0) + 1;
    }
    vector[7] = (vector[7] ?? 0) + 0.5;
    return vector;
  };
  return Object.assign(embed, { calls });
}

/**
 * The contract every `MemoryStore` keeps, as a vitest suite: values kept as given, scopes apart,
 * search ranked as every store ranks (the same hits, scores and order as `InMemoryMemoryStore` for
 * the same data, whatever order it was written in), `delete` of a key and of a whole scope, and with
 * `embed`, a vector computed once per write and once per search. A durable store's `reopen` is
 * checked too.
 */
export function describeMemoryStore(
  name: string,
  open: OpenMemoryStore,
  options: { readonly durable?: boolean } = {},
): void {
  describe(`${name} keeps the MemoryStore contract`, () => {
    const harnesses: MemoryHarness[] = [];
    const fresh = async (embed?: MemoryEmbed): Promise<MemoryHarness> => {
      const harness = await open(embed === undefined ? {} : { embed });
      harnesses.push(harness);
      return harness;
    };
    afterEach(async () => {
      for (const harness of harnesses.splice(0)) await harness.close?.();
    });

    it("gives back what was put, as it was put; a key put again holds the new value", async () => {
      const { store } = await fresh();
      expect(await store.get(ALICE, "missing")).toBeUndefined();
      await store.put(ALICE, "awkward", AWKWARD);
      await store.put(ALICE, "colour", "blue");
      await store.put(ALICE, "colour", "green");
      expect(await store.get(ALICE, "awkward")).toBe(AWKWARD);
      expect(await store.get(ALICE, "colour")).toBe("green");
      expect((await store.search(ALICE, "blue", 5)).map((hit) => hit.key)).toEqual([]);
    });

    it("keeps scopes apart: a resource, another resource, and a thread of the same name", async () => {
      const { store } = await fresh();
      await store.put(ALICE, "secret", "alice's green notebook");
      await store.put(BOB, "secret", "bob's green notebook");
      await store.put(ALICE_THREAD, "secret", "the thread's green notebook");
      expect(await store.get(BOB, "secret")).toBe("bob's green notebook");
      expect(await store.get(ALICE_THREAD, "secret")).toBe("the thread's green notebook");
      const hits = await store.search(ALICE, "green notebook", 10);
      expect(hits.map((hit) => hit.value)).toEqual(["alice's green notebook"]);
      await store.delete(ALICE);
      expect(await store.get(ALICE, "secret")).toBeUndefined();
      expect(await store.search(ALICE, "green", 10)).toEqual([]);
      expect(await store.get(BOB, "secret")).toBe("bob's green notebook");
      expect(await store.get(ALICE_THREAD, "secret")).toBe("the thread's green notebook");
    });

    it("ranks as every store ranks: the same hits, scores and order as the reference, whatever the order of writing", async () => {
      const { store } = await fresh();
      const reference = new InMemoryMemoryStore();
      for (const [key, value] of MEMORY_FACTS) await reference.put(ALICE, key, value);
      for (const [key, value] of [...MEMORY_FACTS].reverse()) await store.put(ALICE, key, value);
      for (const query of QUERIES) {
        expect(await store.search(ALICE, query, 3), query).toEqual(await reference.search(ALICE, query, 3));
      }
      const ferry = await store.search(ALICE, "ferry", 10);
      expect(ferry.map((hit) => hit.key)).toEqual(["tie-1", "tie-2"]);
      expect(ferry[0]?.score).toBe(ferry[1]?.score);
      const green = await store.search(ALICE, "green", 10);
      expect(green.map((hit) => hit.key)).toEqual(["colour", "drink"]);
      expect(green[0]?.score).toBeGreaterThan(green[1]?.score ?? 0);
      expect(await store.search(ALICE, "green", 1)).toEqual(green.slice(0, 1));
      expect(await store.search(ALICE, "green", 0)).toEqual([]);
    });

    it("forgets one key: it is neither got nor found, and the scores of the rest follow", async () => {
      const { store } = await fresh();
      const reference = new InMemoryMemoryStore();
      for (const [key, value] of MEMORY_FACTS) {
        await store.put(ALICE, key, value);
        await reference.put(ALICE, key, value);
      }
      await store.delete(ALICE, "colour");
      await reference.delete(ALICE, "colour");
      await store.delete(ALICE, "never-written");
      expect(await store.get(ALICE, "colour")).toBeUndefined();
      expect(await store.search(ALICE, "green", 10)).toEqual(await reference.search(ALICE, "green", 10));
      expect((await store.search(ALICE, "green", 10)).map((hit) => hit.key)).toEqual(["drink"]);
      await store.put(ALICE, "colour", "green again");
      expect((await store.search(ALICE, "green", 10)).map((hit) => hit.key)).toContain("colour");
    });

    it("takes many writes at once, each one kept", async () => {
      const { store } = await fresh();
      await Promise.all(
        Array.from({ length: 40 }, (_, index) => store.put(ALICE, `fact-${index}`, `fact number ${index}`)),
      );
      const hits = await store.search(ALICE, "fact", 100);
      expect(hits).toHaveLength(40);
      expect(hits.map((hit) => hit.key)).toEqual(Array.from({ length: 40 }, (_, index) => `fact-${index}`).sort());
    });

    it("refuses a bad scope, key, value or limit, and keeps nothing of it", async () => {
      const { store } = await fresh();
      const bad = { user: "alice" } as unknown as MemoryScope;
      await expect(store.put(bad, "k", "v")).rejects.toThrow(TypeError);
      await expect(store.get({ resource: "" }, "k")).rejects.toThrow(TypeError);
      await expect(store.put(ALICE, "", "v")).rejects.toThrow(TypeError);
      await expect(store.put(ALICE, "k", "nul \u0000 inside")).rejects.toThrow(TypeError);
      await expect(store.put(ALICE, "k", "lone \ud800 half")).rejects.toThrow(TypeError);
      await expect(store.search(ALICE, "k", -1)).rejects.toThrow(RangeError);
      await expect(store.search(ALICE, "k", 1.5)).rejects.toThrow(RangeError);
      expect(await store.get(ALICE, "k")).toBeUndefined();
    });

    it("with embed, embeds each write once and each search once, and ranks by cosine as the reference does", async () => {
      const embed = letterEmbedder();
      const { store } = await fresh(embed);
      const reference = new InMemoryMemoryStore({ embed: letterEmbedder() });
      for (const [key, value] of MEMORY_FACTS) {
        await store.put(ALICE, key, value);
        await reference.put(ALICE, key, value);
      }
      expect(embed.calls).toHaveLength(MEMORY_FACTS.length);
      await store.put(ALICE, "colour", "Alice likes the colour green");
      expect(embed.calls).toHaveLength(MEMORY_FACTS.length);
      const hits = await store.search(ALICE, "green tea", 4);
      expect(embed.calls).toHaveLength(MEMORY_FACTS.length + 1);
      expect(embed.calls.at(-1)).toBe("green tea");
      expect(hits).toEqual(await reference.search(ALICE, "green tea", 4));
      expect(hits).toHaveLength(4);
      const ties = await store.search(ALICE, "ferry timetable", 2);
      expect(ties.map((hit) => hit.key)).toEqual(["tie-1", "tie-2"]);
    });

    it("with an embedder that fails, the write rejects and nothing is kept", async () => {
      const { store } = await fresh(() => {
        throw new Error("embedding service down");
      });
      await expect(store.put(ALICE, "k", "v")).rejects.toThrow("embedding service down");
      expect(await store.get(ALICE, "k")).toBeUndefined();
    });

    if (options.durable !== true) return;

    it("a store opened again over the same storage holds every memory and its vector", async () => {
      const embed = letterEmbedder();
      const harness = await fresh(embed);
      const reopen = harness.reopen;
      if (reopen === undefined) throw new TypeError("a durable store's harness must give reopen()");
      for (const [key, value] of MEMORY_FACTS) await harness.store.put(ALICE, key, value);
      const before = await harness.store.search(ALICE, "green tea", 5);
      const again = reopen();
      const calls = embed.calls.length;
      expect(await again.get(ALICE, "unicode")).toBe("Crème brûlée is her favourite — ÉCLAIRS too");
      expect(await again.search(ALICE, "green tea", 5)).toEqual(before);
      expect(embed.calls.length - calls).toBe(1);
    });
  });
}
