import { describe, expect, it } from "vitest";
import { parseArguments } from "./parse-arguments.js";

describe("parseArguments", () => {
  it("parses a JSON object", () => {
    expect(parseArguments('{"city":"Pune","n":2}')).toEqual({ args: { city: "Pune", n: 2 } });
  });

  it.each([
    ['{"city": "Pu', "cut off"],
    ["{city: 'Pune'}", "not JSON"],
    ["[1,2]", "an array"],
    ['"Pune"', "a string"],
    ["null", "null"],
  ])("keeps %j (%s) as rawArgs with empty args", (raw) => {
    expect(parseArguments(raw)).toEqual({ args: {}, rawArgs: raw });
  });

  it("reads missing or blank arguments as no arguments", () => {
    expect(parseArguments(undefined)).toEqual({ args: {} });
    expect(parseArguments(null)).toEqual({ args: {} });
    expect(parseArguments("  ")).toEqual({ args: {} });
  });

  it("takes an object sent as-is, and keeps any other value as JSON text", () => {
    expect(parseArguments({ city: "Pune" })).toEqual({ args: { city: "Pune" } });
    expect(parseArguments(42)).toEqual({ args: {}, rawArgs: "42" });
  });
});
