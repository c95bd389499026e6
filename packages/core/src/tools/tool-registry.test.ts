import { describe, expect, it } from "vitest";
import type { ToolParameters } from "../data/types.js";
import { ToolSchemaError } from "../index.js";
import { ToolRegistry } from "./tool-registry.js";

const CITY: ToolParameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const NONE: ToolParameters = { type: "object" };

/** A schema the type system would refuse, as a careless caller might still pass it. */
function loose(value: unknown): ToolParameters {
  return value as ToolParameters;
}

function containsFunction(value: unknown): boolean {
  if (typeof value === "function") return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(containsFunction);
}

describe("ToolRegistry.specs", () => {
  it("lists name, description and parameters in registration order, never a function", () => {
    const registry = new ToolRegistry();
    registry.register("zeta", "Last letter.", CITY, () => 1);
    registry.register("alpha", "First letter.", NONE, () => 2);
    const specs = registry.specs();
    expect(specs).toEqual([
      { name: "zeta", description: "Last letter.", parameters: CITY },
      { name: "alpha", description: "First letter.", parameters: NONE },
    ]);
    expect(specs.map((s) => Object.keys(s).sort())).toEqual([
      ["description", "name", "parameters"],
      ["description", "name", "parameters"],
    ]);
    expect(containsFunction(specs)).toBe(false);
  });

  it("is empty for a new registry", () => {
    expect(new ToolRegistry().specs()).toEqual([]);
  });
});

describe("ToolRegistry.register", () => {
  it("refuses a name registered twice and keeps the first tool", async () => {
    const registry = new ToolRegistry();
    registry.register("t", "First.", NONE, () => "first");
    expect(() => registry.register("t", "Second.", NONE, () => "second")).toThrow();
    expect(registry.specs()).toHaveLength(1);
    await expect(registry.execute("t", {})).resolves.toBe('"first"');
  });

  const badSchemas: [string, unknown][] = [
    ["a schema whose type is not 'object'", { type: "array" }],
    ["a schema with no type", { properties: {} }],
    ["a required key not in properties", { type: "object", properties: { a: { type: "string" } }, required: ["b"] }],
    ["a required key with no properties at all", { type: "object", required: ["a"] }],
    ["a property of unsupported type", { type: "object", properties: { items: { type: "array" } } }],
    ["a property with no type", { type: "object", properties: { a: {} } }],
    [
      "a property with an unknown type beside other keywords",
      { type: "object", properties: { a: { type: "str", enum: ["x"] } } },
    ],
  ];
  for (const [label, schema] of badSchemas) {
    it(`refuses ${label} with a ToolSchemaError`, () => {
      const registry = new ToolRegistry();
      let thrown: unknown;
      try {
        registry.register("bad", "Bad schema.", loose(schema), () => null);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ToolSchemaError);
      expect(thrown).toBeInstanceOf(Error);
      expect(registry.specs()).toEqual([]);
    });
  }

  it("names the unsupported type in the error", () => {
    const schema = loose({ type: "object", properties: { items: { type: "array" } } });
    expect(() => new ToolRegistry().register("bad", "Bad.", schema, () => null)).toThrow(/unsupported type 'array'/);
  });

  it("accepts every supported type and a description", () => {
    const registry = new ToolRegistry();
    const schema: ToolParameters = {
      type: "object",
      properties: {
        s: { type: "string", description: "a string" },
        i: { type: "integer" },
        n: { type: "number" },
        b: { type: "boolean" },
      },
      required: ["s", "i"],
    };
    expect(() => registry.register("all", "All types.", schema, () => null)).not.toThrow();
    expect(registry.specs()[0]?.parameters).toEqual(schema);
  });

  const badNames = ["", "a b", "get.weather", "a/b", "héllo", "x".repeat(65), "tab\t", "new\nline"];
  for (const name of badNames) {
    it(`refuses the tool name ${JSON.stringify(name)}`, () => {
      const registry = new ToolRegistry();
      expect(() => registry.register(name, "Bad name.", NONE, () => null)).toThrow();
      expect(registry.specs()).toEqual([]);
    });
  }

  it("accepts names of letters, digits, '_' and '-', up to 64 characters", () => {
    const registry = new ToolRegistry();
    for (const name of ["A", "get_weather", "c-to-f_2", "x".repeat(64)]) {
      registry.register(name, "Good name.", NONE, () => null);
    }
    expect(registry.specs().map((s) => s.name)).toEqual(["A", "get_weather", "c-to-f_2", "x".repeat(64)]);
  });
});

describe("ToolRegistry.execute", () => {
  function counted() {
    const registry = new ToolRegistry();
    const calls: unknown[] = [];
    registry.register("get_weather", "Weather.", CITY, (args: unknown) => {
      calls.push(args);
      return { city: "Pune", celsius: 30 };
    });
    return { registry, calls };
  }

  it("checks the name first: an unknown tool with bad arguments is reported as unknown", async () => {
    const { registry, calls } = counted();
    await expect(registry.execute("nope", null)).resolves.toBe(
      "ERROR: unknown tool 'nope'. Available tools: ['get_weather']",
    );
    expect(calls).toEqual([]);
  });

  it("lists no tools for an empty registry", async () => {
    await expect(new ToolRegistry().execute("x", {})).resolves.toBe("ERROR: unknown tool 'x'. Available tools: []");
  });

  it("checks the arguments next: the function never runs for an invalid call", async () => {
    const { registry, calls } = counted();
    await expect(registry.execute("get_weather", { city: 7 })).resolves.toBe(
      `ERROR: argument 'city' must be of type string. get_weather expects {"city":{"type":"string"}}`,
    );
    await expect(registry.execute("get_weather", {})).resolves.toMatch(/^ERROR: missing required argument 'city'\./);
    expect(calls).toEqual([]);
  });

  it("runs a valid call once with its arguments and returns JSON", async () => {
    const { registry, calls } = counted();
    await expect(registry.execute("get_weather", { city: "Pune" })).resolves.toBe('{"city":"Pune","celsius":30}');
    expect(calls).toEqual([{ city: "Pune" }]);
  });

  it("awaits an async tool", async () => {
    const registry = new ToolRegistry();
    registry.register("slow", "Resolves later.", NONE, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { ok: true };
    });
    await expect(registry.execute("slow", {})).resolves.toBe('{"ok":true}');
  });

  it("awaits an async tool that rejects later", async () => {
    const registry = new ToolRegistry();
    registry.register("slow", "Rejects later.", NONE, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new RangeError("too slow");
    });
    await expect(registry.execute("slow", {})).resolves.toBe("ERROR: slow failed: RangeError: too slow");
  });

  it("reports a thrown error by its name and message, with no stack trace", async () => {
    class CityError extends Error {
      override name = "CityError";
    }
    const registry = new ToolRegistry();
    registry.register("t", "Throws.", NONE, () => {
      throw new CityError("no such city 'Atlantis'");
    });
    const out = await registry.execute("t", {});
    expect(out).toBe("ERROR: t failed: CityError: no such city 'Atlantis'");
    expect(out).not.toContain("    at ");
    expect(out).not.toContain("\n");
  });

  it("reports a runtime TypeError from inside the tool without a stack trace", async () => {
    const registry = new ToolRegistry();
    registry.register("t", "Crashes.", NONE, () => (null as unknown as { x: { y: number } }).x.y);
    const out = await registry.execute("t", {});
    expect(String(out).startsWith("ERROR: t failed: TypeError: ")).toBe(true);
    expect(out).not.toContain("    at ");
  });

  it("encodes plain results as JSON", async () => {
    const registry = new ToolRegistry();
    registry.register("s", "String.", NONE, () => "pong");
    registry.register("n", "Number.", NONE, () => 86);
    registry.register("z", "Null.", NONE, () => null);
    await expect(registry.execute("s", {})).resolves.toBe('"pong"');
    await expect(registry.execute("n", {})).resolves.toBe("86");
    await expect(registry.execute("z", {})).resolves.toBe("null");
  });
});
