import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ToolParameters } from "../data/types.js";
import { jsonSchema } from "./schema/json-schema-parameters.js";
import { ToolRegistry } from "./tool-registry.js";

// These are checked by `tsc` (the package's typecheck); at run time they only register tools.
describe("register infers a literal schema's arguments as tool() does", () => {
  it("types the arguments of a literal schema", () => {
    const registry = new ToolRegistry();
    registry.register(
      "weather",
      "d",
      { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
      (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number }>();
        return args.city.toUpperCase();
      },
    );
    registry.register("lookup", "d", { type: "object", properties: { city: { type: "string" } } }, ({ city }) =>
      city?.toUpperCase(),
    );
    registry.register(
      "mail",
      "d",
      {
        type: "object",
        properties: { to: { type: "array", items: { type: "string" } }, unit: { enum: ["C", "F"] } },
        required: ["to"],
      },
      (args) => expectTypeOf(args).toEqualTypeOf<{ to: string[]; unit?: "C" | "F" }>(),
    );
    expect(registry.specs().map((spec) => spec.name)).toEqual(["weather", "lookup", "mail"]);
  });

  it("keeps a correct annotation compiling and refuses a wrong one", () => {
    const registry = new ToolRegistry();
    const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;
    registry.register("annotated", "d", weather, ({ city }: { city: string }) => city);
    // Written before the inference: the function takes an optional argument as given, as it always could.
    registry.register(
      "legacy",
      "d",
      { type: "object", properties: { city: { type: "string" } } },
      ({ city }: { city: string }) => city.toUpperCase(),
    );
    registry.register(
      "unannotated",
      "d",
      { type: "object", properties: { city: { type: "string" } } },
      // @ts-expect-error: without an annotation, an optional argument is typed as one that may be missing.
      ({ city }) => city.toUpperCase(),
    );
    registry.register(
      "wrong",
      "d",
      { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      // @ts-expect-error: `n` is an integer, so a function that wants a string does not fit.
      ({ n }: { n: string }) => n.length,
    );
    expect(registry.specs()).toHaveLength(4);
  });

  it("still lets a function declare its arguments for a schema the type system cannot see", () => {
    const registry = new ToolRegistry();
    const schema: ToolParameters = { type: "object", properties: { city: { type: "string" } } };
    registry.register("variable", "d", schema, ({ city }: { city: string }) => city);
    registry.register("zod", "d", z.object({ n: z.number() }), (args) =>
      expectTypeOf(args).toEqualTypeOf<{ n: number }>(),
    );
    registry.register("marked", "d", jsonSchema({ type: "object", properties: { n: { type: "number" } } }), (args) =>
      expectTypeOf(args).toEqualTypeOf<{ n?: number }>(),
    );
    expect(registry.specs()).toHaveLength(3);
  });
});
