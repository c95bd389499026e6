import { describe, expect, it } from "vitest";
import { ToolSchemaError } from "../data/errors.js";
import type { ToolParameters } from "../data/types.js";
import { validateArgs } from "./schema/validate-args.js";
import { tool } from "./tool.js";
import { ToolRegistry } from "./tool-registry.js";

// Function definitions as the providers' documentation writes them: plain JSON Schema, no `$schema`.
const OPENAI_STRICT = {
  type: "object",
  properties: {
    location: { type: "string", description: "City and country e.g. Bogotá, Colombia" },
    units: {
      type: ["string", "null"],
      enum: ["celsius", "fahrenheit", null],
      description: "Units the temperature will be returned in.",
    },
  },
  required: ["location", "units"],
  additionalProperties: false,
} as const;

const ANTHROPIC = {
  type: "object",
  properties: {
    location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
    unit: { type: "string", enum: ["celsius", "fahrenheit"], description: "The unit of temperature" },
  },
  required: ["location"],
} as const;

const OPENAI_NESTED = {
  type: "object",
  properties: {
    to: { type: "array", items: { type: "string", format: "email" }, minItems: 1 },
    body: { type: "object", properties: { subject: { type: "string", maxLength: 80 } }, required: ["subject"] },
  },
  required: ["to", "body"],
} as const;

const SEARCH = { type: "object", properties: { q: { type: "string", minLength: 1 } } } as const;

function registered(parameters: ToolParameters): { registry: ToolRegistry; runs: unknown[] } {
  const runs: unknown[] = [];
  const registry = new ToolRegistry();
  registry.register("f", "A function definition.", parameters, (args: unknown) => {
    runs.push(args);
    return "ok";
  });
  return { registry, runs };
}

describe("plain JSON Schema without $schema is draft 2020-12", () => {
  const definitions: [string, ToolParameters][] = [
    ["a string with minLength", SEARCH],
    ["OpenAI's strict get_weather", OPENAI_STRICT],
    ["Anthropic's get_weather", ANTHROPIC],
    ["nested arrays and objects", OPENAI_NESTED],
  ];
  for (const [label, parameters] of definitions) {
    it(`registers ${label} with register and tool(), and shows it unchanged`, () => {
      expect(registered(parameters).registry.specs()[0]?.parameters).toEqual(parameters);
      const made = tool({ name: "f", description: "d", parameters, execute: () => 1 });
      expect(new ToolRegistry([made]).specs()[0]?.parameters).toEqual(parameters);
    });
  }

  it("enforces the keywords beyond the subset, in sentences naming the argument", async () => {
    const search = registered(SEARCH);
    await expect(search.registry.execute("f", { q: "" })).resolves.toBe(
      `ERROR: argument 'q' must be at least 1 character long (got 0). f expects {"q":{"type":"string","minLength":1}}`,
    );
    const weather = registered(ANTHROPIC);
    await expect(weather.registry.execute("f", { location: "Pune", unit: "kelvin" })).resolves.toMatch(
      /^ERROR: argument 'unit' must be one of "celsius", "fahrenheit" \(got "kelvin"\)/,
    );
    const strict = registered(OPENAI_STRICT);
    await expect(strict.registry.execute("f", { location: "Pune", units: null, x: 1 })).resolves.toMatch(
      /^ERROR: unexpected argument 'x'/,
    );
    const mail = registered(OPENAI_NESTED);
    await expect(mail.registry.execute("f", { to: ["a@example.com"], body: {} })).resolves.toMatch(
      /^ERROR: missing required argument 'body.subject'/,
    );
    expect([search.runs, weather.runs, strict.runs, mail.runs]).toEqual([[], [], [], []]);
    await expect(strict.registry.execute("f", { location: "Pune", units: null })).resolves.toBe('"ok"');
    expect(strict.runs).toEqual([{ location: "Pune", units: null }]);
  });

  it("validateArgs reads it the same way", () => {
    expect(validateArgs({ q: "" }, SEARCH)).toBe("argument 'q' must be at least 1 character long (got 0)");
    expect(validateArgs({ q: "x" }, SEARCH)).toBeNull();
  });

  it("keeps the spec's subset, and its sentences, for a schema of only type, description and required", async () => {
    const weather = {
      type: "object",
      properties: { city: { type: "string", description: "A city" } },
      required: ["city"],
    };
    const { registry } = registered(weather as ToolParameters);
    await expect(registry.execute("f", { city: 3 })).resolves.toBe(
      `ERROR: argument 'city' must be of type string. f expects {"city":{"type":"string","description":"A city"}}`,
    );
    expect(() => registered({ type: "object", properties: { items: { type: "array" } } })).toThrow(
      /unsupported type 'array'/,
    );
  });

  it("still refuses what cannot be enforced", () => {
    const refused: unknown[] = [
      { type: "object", properties: { q: { type: "text", minLength: 1 } } },
      { type: "object", properties: { q: { type: "string", pattern: "(" } } },
      { type: "object", properties: { q: { $ref: "#/$defs/missing" } } },
      { type: "array", items: { type: "string" } },
    ];
    for (const parameters of refused) {
      expect(() => registered(parameters as ToolParameters)).toThrow(ToolSchemaError);
    }
  });
});
