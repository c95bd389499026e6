import { describe, expect, it } from "vitest";
import type { ParameterType, ToolParameters } from "../../data/types.js";
import { validateArgs } from "./validate-args.js";

const WEATHER: ToolParameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

function oneArg(type: ParameterType, required = true): ToolParameters {
  return { type: "object", properties: { v: { type } }, required: required ? ["v"] : [] };
}

describe("validateArgs", () => {
  describe("arguments must be a JSON object", () => {
    const notObjects: [string, unknown][] = [
      ["null", null],
      ["undefined", undefined],
      ["an array", []],
      ["a string", "Pune"],
      ["a number", 30],
      ["a boolean", true],
      ["a Date", new Date(0)],
      ["a Map", new Map([["city", "Pune"]])],
    ];
    for (const [label, args] of notObjects) {
      it(`refuses ${label}`, () => {
        expect(validateArgs(args, WEATHER)).toBe("arguments must be a JSON object");
        expect(validateArgs(args, { type: "object" })).toBe("arguments must be a JSON object");
      });
    }
  });

  it("returns null for valid arguments", () => {
    expect(validateArgs({ city: "Pune" }, WEATHER)).toBeNull();
    expect(validateArgs({}, { type: "object" })).toBeNull();
    expect(validateArgs({}, { type: "object", properties: {} })).toBeNull();
    expect(validateArgs(JSON.parse('{"city":"Pune"}'), WEATHER)).toBeNull();
  });

  it("lets an optional argument be left out or given", () => {
    const schema: ToolParameters = {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", description: "C or F" } },
      required: ["city"],
    };
    expect(validateArgs({ city: "Pune" }, schema)).toBeNull();
    expect(validateArgs({ city: "Pune", unit: "F" }, schema)).toBeNull();
    expect(validateArgs({ city: "Pune", unit: 1 }, schema)).toBe("argument 'unit' must be of type string");
  });

  it("names a missing required argument", () => {
    expect(validateArgs({}, WEATHER)).toBe("missing required argument 'city'");
  });

  it("names an argument that is not in the schema", () => {
    expect(validateArgs({ city: "Pune", unit: "F" }, WEATHER)).toBe("unexpected argument 'unit'");
    expect(validateArgs({ x: 1 }, { type: "object" })).toBe("unexpected argument 'x'");
  });

  describe("wrong type", () => {
    const cases: [ParameterType, unknown[], unknown[]][] = [
      ["string", ["", "Pune", "30"], [30, true, null, {}, [], ["a"]]],
      ["integer", [0, 2, -7, -0, 2 ** 53], [1.5, -0.1, "2", true, null, Number.NaN, Number.POSITIVE_INFINITY]],
      ["number", [0, 1.5, -3, 30, Number.MAX_VALUE], ["30", true, false, null, Number.NaN, Number.NEGATIVE_INFINITY]],
      ["boolean", [true, false], [1, 0, "true", null, {}]],
    ];
    for (const [type, good, bad] of cases) {
      it(`${type}: accepts ${good.length} values and refuses ${bad.length}`, () => {
        for (const v of good) expect(validateArgs({ v }, oneArg(type))).toBeNull();
        for (const v of bad) expect(validateArgs({ v }, oneArg(type))).toBe(`argument 'v' must be of type ${type}`);
      });
    }

    it("checks the type of an optional argument that is given", () => {
      expect(validateArgs({ v: "x" }, oneArg("number", false))).toBe("argument 'v' must be of type number");
      expect(validateArgs({}, oneArg("number", false))).toBeNull();
    });
  });

  describe("order of the checks", () => {
    const schema: ToolParameters = {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "string" } },
      required: ["a", "b"],
    };

    it("reports a missing required argument before an unknown one", () => {
      expect(validateArgs({ unit: "F" }, WEATHER)).toBe("missing required argument 'city'");
    });

    it("reports a missing required argument before a wrong type", () => {
      expect(validateArgs({ a: "not a number" }, schema)).toBe("missing required argument 'b'");
    });

    it("reports the first missing required argument in the order of `required`", () => {
      expect(validateArgs({}, schema)).toBe("missing required argument 'a'");
      expect(validateArgs({}, { ...schema, required: ["b", "a"] })).toBe("missing required argument 'b'");
    });

    it("then checks each key in the order of the arguments", () => {
      expect(validateArgs({ a: 1, b: "x", y: 1, z: 2 }, schema)).toBe("unexpected argument 'y'");
      expect(validateArgs({ b: 2, a: "x" }, schema)).toBe("argument 'b' must be of type string");
      expect(validateArgs({ a: "x", b: 2 }, schema)).toBe("argument 'a' must be of type number");
      expect(validateArgs({ z: 1, a: "x", b: "y" }, schema)).toBe("unexpected argument 'z'");
      expect(validateArgs({ a: "x", b: "y", z: 1 }, schema)).toBe("argument 'a' must be of type number");
    });
  });

  it("does not change the arguments or the schema", () => {
    const args = { city: "Pune", unit: "F" };
    const schema = structuredClone(WEATHER);
    validateArgs(args, schema);
    expect(args).toEqual({ city: "Pune", unit: "F" });
    expect(schema).toEqual(WEATHER);
  });
});
