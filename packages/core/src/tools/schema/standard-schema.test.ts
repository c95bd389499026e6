import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { ToolSchemaError } from "../../data/errors.js";
import { tool } from "../tool.js";
import { ToolRegistry } from "../tool-registry.js";

const forecast = z.object({
  city: z.string().describe("e.g. Pune"),
  days: z.number().int().min(1).max(7).default(3),
  unit: z.enum(["C", "F"]).optional(),
  filters: z.array(z.object({ field: z.string(), op: z.enum(["eq", "lt"]) })).optional(),
});

function forecastRegistry() {
  const runs: unknown[] = [];
  const registry = new ToolRegistry([
    tool({
      name: "forecast",
      description: "Forecast for a city.",
      parameters: forecast,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<z.output<typeof forecast>>();
        runs.push(args);
        return `${args.city}: ${args.days} days`;
      },
    }),
  ]);
  return { registry, runs };
}

describe("zod 4 parameters", () => {
  it("are shown to the model as the JSON Schema zod gives for their input", () => {
    const { registry } = forecastRegistry();
    const [spec] = registry.specs();
    expect(spec?.parameters).toEqual(forecast["~standard"].jsonSchema.input({ target: "draft-2020-12" }));
    expect(spec?.parameters.required).toEqual(["city"]);
    expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
  });

  it("give the function zod's output: defaults filled in", async () => {
    const { registry, runs } = forecastRegistry();
    await expect(registry.execute("forecast", { city: "Pune" })).resolves.toBe('"Pune: 3 days"');
    expect(runs).toEqual([{ city: "Pune", days: 3 }]);
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    ["a wrong type", { city: 7 }, "argument 'city' must be of type string (got 7)"],
    ["a missing argument", {}, "missing required argument 'city'"],
    ["a number out of range", { city: "Pune", days: 9 }, "argument 'days' must be at most 7 (got 9)"],
    ["an enum", { city: "Pune", unit: "K" }, `argument 'unit' must be one of "C", "F" (got "K")`],
    [
      "a nested enum",
      { city: "P", filters: [{ field: "a", op: "gt" }] },
      `argument 'filters[0].op' must be one of "eq", "lt" (got "gt")`,
    ],
    ["an unknown key zod would strip", { city: "Pune", town: "x" }, "unexpected argument 'town'"],
  ];
  for (const [label, args, sentence] of refusals) {
    it(`refuse ${label} with the same sentence as a JSON Schema, and run nothing`, async () => {
      const { registry, runs } = forecastRegistry();
      await expect(registry.execute("forecast", args)).resolves.toBe(
        `ERROR: ${sentence}. forecast expects ${JSON.stringify(registry.specs()[0]?.parameters.properties)}`,
      );
      expect(runs).toEqual([]);
    });
  }

  it("say what only the library knows (a refinement) with its message, naming the argument", async () => {
    const even = z.object({ n: z.number().refine((n) => n % 2 === 0, "must be even") });
    const registry = new ToolRegistry([
      tool({ name: "even", description: "d", parameters: even, execute: ({ n }) => n }),
    ]);
    await expect(registry.execute("even", { n: 3 })).resolves.toMatch(
      /^ERROR: argument 'n' is invalid: must be even\. /,
    );
    await expect(registry.execute("even", { n: 4 })).resolves.toBe("4");
  });

  it("accept unknown keys only when the schema says so (looseObject)", async () => {
    const loose = z.looseObject({ a: z.string() });
    const registry = new ToolRegistry([tool({ name: "l", description: "d", parameters: loose, execute: (x) => x })]);
    await expect(registry.execute("l", { a: "x", b: 1 })).resolves.toBe('{"a":"x","b":1}');
  });

  it("may validate asynchronously", async () => {
    const slow = z.object({ id: z.string().refine(async (id) => id.startsWith("u_"), "must start with u_") });
    const registry = new ToolRegistry([
      tool({ name: "s", description: "d", parameters: slow, execute: ({ id }) => id }),
    ]);
    await expect(registry.execute("s", { id: "u_1" })).resolves.toBe('"u_1"');
    await expect(registry.execute("s", { id: "x" })).resolves.toMatch(
      /^ERROR: argument 'id' is invalid: must start with u_/,
    );
    expect(registry.wouldRun({ id: "c", name: "s", args: { id: "x" } })).toBe(true);
    // A plain type error is found before the asynchronous refinement: known at once.
    expect(registry.wouldRun({ id: "c", name: "s", args: { id: 1 } })).toBe(false);
  });

  it("tell wouldRun about valid and invalid calls without running anything", () => {
    const { registry, runs } = forecastRegistry();
    expect(registry.wouldRun({ id: "c", name: "forecast", args: { city: "Pune" } })).toBe(true);
    expect(registry.wouldRun({ id: "c", name: "forecast", args: { city: 1 } })).toBe(false);
    expect(runs).toEqual([]);
  });

  const refused: [string, unknown, RegExp][] = [
    ["a schema that is not an object", z.string(), /type 'object'/],
    ["a schema JSON Schema cannot show", z.object({ when: z.date() }), /cannot be shown to the model/],
    ["a union at the root", z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]), /type 'object'/],
  ];
  for (const [label, schema, message] of refused) {
    it(`refuse ${label} at registration`, () => {
      const define = () =>
        tool({ name: "bad", description: "d", parameters: schema as typeof forecast, execute: () => null });
      expect(define).toThrow(ToolSchemaError);
      expect(define).toThrow(message);
    });
  }
});

describe("valibot parameters", () => {
  const schema = v.object({ city: v.string(), days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))) });

  it("work through @valibot/to-json-schema's Standard JSON Schema", async () => {
    const parameters = toStandardJsonSchema(schema);
    const registry = new ToolRegistry();
    registry.register("weather", "Weather.", parameters, ({ city, days }) => `${city}/${days ?? 1}`);
    expect(registry.specs()[0]?.parameters).toMatchObject({ type: "object", required: ["city"] });
    await expect(registry.execute("weather", { city: "Pune" })).resolves.toBe('"Pune/1"');
    await expect(registry.execute("weather", { city: "Pune", days: 0 })).resolves.toMatch(
      /^ERROR: argument 'days' must be at least 1 \(got 0\)/,
    );
    await expect(registry.execute("weather", { city: "Pune", x: 1 })).resolves.toMatch(
      /^ERROR: unexpected argument 'x'/,
    );
  });

  it("are refused without a JSON Schema, with the way to get one", () => {
    expect(() => new ToolRegistry().register("w", "d", schema as never, () => 1)).toThrow(
      /cannot describe itself as JSON Schema.*toStandardJsonSchema/,
    );
  });
});

describe("a Standard Schema that misbehaves", () => {
  function odd(validate: (value: unknown) => unknown) {
    const base = forecast["~standard"];
    return { "~standard": { ...base, validate } } as unknown as typeof forecast;
  }

  it("a validate that throws gives an observation", async () => {
    const registry = new ToolRegistry();
    registry.register(
      "t",
      "d",
      odd(() => {
        throw new Error("broken validator");
      }),
      () => 1,
    );
    await expect(registry.execute("t", { city: "x" })).resolves.toBe(
      "ERROR: t could not be run: Error: broken validator",
    );
    expect(registry.wouldRun({ id: "c", name: "t", args: { city: "x" } })).toBe(false);
  });

  it("a validate whose output is not an object gives an observation", async () => {
    const registry = new ToolRegistry();
    registry.register(
      "t",
      "d",
      odd(() => ({ value: 42 })),
      () => 1,
    );
    await expect(registry.execute("t", { city: "x" })).resolves.toMatch(/^ERROR: the schema turned the arguments into/);
  });

  it("'~standard' without validate is refused", () => {
    expect(() => new ToolRegistry().register("t", "d", { "~standard": {} } as never, () => 1)).toThrow(/no 'validate'/);
  });
});
