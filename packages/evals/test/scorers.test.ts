import type { AgentResult } from "@agentloop/core";
import type { RunEvent } from "@agentloop/core/store";
import { describe, expect, it } from "vitest";
import { type EvalCase, exactAnswer, outputMatches, toolCalls } from "../src/index.js";

function result(answer: string | null, output?: unknown): AgentResult {
  return { status: "done", answer, steps: 1, tokens: 1, messages: [], ...(output !== undefined ? { output } : {}) };
}
const replied = (...names: string[]): RunEvent => ({
  type: "model.replied",
  reply: { content: "", toolCalls: names.map((name, index) => ({ id: `c${index}`, name, args: {} })) },
});
const score = (scorer: ReturnType<typeof exactAnswer>, c: EvalCase, r: AgentResult, events: RunEvent[] = []) =>
  scorer.score({ case: c, result: r, events });

describe("exactAnswer", () => {
  it("compares the trimmed answer with the expected string, case-sensitive unless told", () => {
    const c = { id: "a", task: "t", expected: "Paris" };
    expect(score(exactAnswer(), c, result(" Paris\n"))).toBe(1);
    expect(score(exactAnswer(), c, result("paris"))).toBe(0);
    expect(score(exactAnswer({ caseSensitive: false }), c, result("PARIS"))).toBe(1);
    expect(score(exactAnswer(), c, result(null))).toBe(0);
  });
  it("throws for a case without a string expected", () => {
    expect(() => score(exactAnswer(), { id: "a", task: "t" }, result("x"))).toThrow("case 'a' has no expected answer");
  });
});

describe("outputMatches", () => {
  const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;
  it("without a schema: the typed output, or the answer read as JSON, equals expected (keys in any order)", () => {
    const c = { id: "a", task: "t", expected: { city: "Pune", c: 30 } };
    expect(score(outputMatches(), c, result("", { c: 30, city: "Pune" }))).toBe(1);
    expect(score(outputMatches(), c, result('{"c":30,"city":"Pune"}'))).toBe(1);
    expect(score(outputMatches(), c, result('{"c":31,"city":"Pune"}'))).toBe(0);
    expect(score(outputMatches(), c, result("not json"))).toBe(0);
  });
  it("with a schema: the value must match it, and equal expected when there is one", () => {
    const open = { id: "a", task: "t" };
    expect(score(outputMatches(schema), open, result('{"city":"Pune"}'))).toBe(1);
    expect(score(outputMatches(schema), open, result('{"town":"Pune"}'))).toBe(0);
    const exact = { ...open, expected: { city: "Delhi" } };
    expect(score(outputMatches(schema), exact, result('{"city":"Pune"}'))).toBe(0);
  });
  it("throws for a case with neither schema nor expected", () => {
    expect(() => score(outputMatches(), { id: "a", task: "t" }, result("{}"))).toThrow("has no expected output");
  });
});

describe("toolCalls", () => {
  const c = { id: "a", task: "t" };
  it("exact: the very calls in order", () => {
    expect(score(toolCalls(["a", "b"]), c, result("x"), [replied("a"), replied("b")])).toBe(1);
    expect(score(toolCalls(["a", "b"]), c, result("x"), [replied("b", "a")])).toBe(0);
    expect(score(toolCalls(["a"]), c, result("x"), [replied("a", "a")])).toBe(0);
  });
  it("any: the share of expected calls made, counted with repeats, in any order", () => {
    const scorer = toolCalls(["a", "a", "b", "c"], { order: "any" });
    expect(score(scorer, c, result("x"), [replied("b", "a", "x")])).toBe(0.5);
    expect(score(toolCalls([], { order: "any" }), c, result("x"), [])).toBe(1);
  });
  it("reads the calls from the log, not from the answer's text", () => {
    expect(score(toolCalls(["a"]), c, result("I called a"), [])).toBe(0);
  });
});
