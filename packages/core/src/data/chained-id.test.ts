import { describe, expect, it } from "vitest";
import { chainCallId, escapeCallId, splitChainedId, unescapeCallId } from "./chained-id.js";

describe("chained ids", () => {
  it("write % and / inside a call id so that the ids of two calls never meet", () => {
    expect(chainCallId("a/x", "e")).toBe("a%2Fx/e");
    expect(chainCallId("a", "x/e")).toBe("a/x%2Fe");
    expect(chainCallId("50%", "e%2F")).toBe("50%25/e%252F");
    expect(chainCallId("r1", chainCallId("g/1", "e1"), true)).toBe("r1/g%2F1/e1");
  });

  it("split back into the call ids they are made of", () => {
    for (const ids of [["a/x", "e"], ["a", "x/e"], ["50%", "e%2F", "%25/"], ["plain"]]) {
      expect(splitChainedId(ids.map(escapeCallId).join("/"))).toEqual(ids);
    }
    expect(splitChainedId(chainCallId("a/x", chainCallId("y", "%"), true))).toEqual(["a/x", "y", "%"]);
    expect(unescapeCallId(escapeCallId("%2F/%25"))).toBe("%2F/%25");
  });
});
