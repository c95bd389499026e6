import { describe, expect, it } from "vitest";
import { type LexicalCandidate, queryTerms, rankLexical, rankTermRows } from "./memory-search.js";

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
