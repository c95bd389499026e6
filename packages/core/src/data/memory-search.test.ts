import { describe, expect, it } from "vitest";
import { type LexicalCandidate, queryTerms, rankLexical, rankTermRows, searchMemory } from "./memory-search.js";

describe("rankTermRows", () => {
  it("ranks a SQL store's term rows as rankLexical ranks the candidates they make", () => {
    const terms = queryTerms("red apple");
    const rows = [
      { key: "a", value: "red apple", length: 2, term: "red", count: 1 },
      { key: "b", value: "apple pie, apple tart", length: 4, term: "apple", count: 2 },
      { key: "a", value: "red apple", length: 2, term: "apple", count: 1 },
    ];
    const holding = new Map([
      ["red", 1],
      ["apple", 2],
    ]);
    const candidates: LexicalCandidate[] = [
      {
        key: "a",
        value: "red apple",
        length: 2,
        counts: new Map([
          ["red", 1],
          ["apple", 1],
        ]),
      },
      { key: "b", value: "apple pie, apple tart", length: 4, counts: new Map([["apple", 2]]) },
    ];
    const expected = rankLexical(terms, { count: 3, totalLength: 9, holding }, candidates, 5);
    expect(rankTermRows(terms, rows, holding, { memories: 3, total: 9 }, 5)).toEqual(expected);
    expect(expected.map((hit) => hit.key)).toEqual(["a", "b"]);
  });

  it("takes a scope with no count as empty", () => {
    expect(rankTermRows(["red"], [], new Map([["red", 0]]), undefined, 5)).toEqual([]);
  });
});

describe("searchMemory", () => {
  const never = {
    vectors: () => {
      throw new Error("not read");
    },
    lexical: () => {
      throw new Error("not read");
    },
  };

  it("checks the query and limit, and finds nothing for a limit of 0 without getting ready", async () => {
    await expect(searchMemory(7 as unknown as string, 1, undefined, never)).rejects.toThrow(TypeError);
    await expect(searchMemory("x", -1, undefined, never)).rejects.toThrow(RangeError);
    let ready = false;
    const hits = await searchMemory("x", 0, undefined, {
      ...never,
      ready: async () => {
        ready = true;
      },
    });
    expect(hits).toEqual([]);
    expect(ready).toBe(false);
  });

  it("gets ready, then ranks the vectors by the embedded query, or the query's terms lexically", async () => {
    const order: string[] = [];
    const search = {
      ready: async () => void order.push("ready"),
      vectors: () => [
        { key: "a", value: "A", vector: [1, 0] },
        { key: "b", value: "B", vector: [0, 1] },
      ],
      lexical: (terms: readonly string[]) => [{ key: terms.join(" "), value: "", score: 1 }],
    };
    const embed = (text: string) => {
      order.push(`embed ${text}`);
      return [0, 1];
    };
    expect((await searchMemory("q", 1, embed, search)).map((hit) => hit.key)).toEqual(["b"]);
    expect(order).toEqual(["ready", "embed q"]);
    expect(await searchMemory("red apple", 3, undefined, search)).toEqual([
      { key: queryTerms("red apple").join(" "), value: "", score: 1 },
    ]);
    expect(await searchMemory("", 3, undefined, search)).toEqual([]);
  });
});
