import { describe, expect, it } from "vitest";
import { MAX_ARGS_DEPTH as REPLY_DEPTH } from "../../data/check-reply.js";
import { ToolSchemaError } from "../../data/errors.js";
import { MAX_ARGS_DEPTH } from "../../data/json-value.js";
import type { ToolParameters } from "../../data/types.js";
import { ToolRegistry } from "../tool-registry.js";
import { jsonSchema } from "./json-schema-parameters.js";
import { validateArgs } from "./validate-args.js";

const DRAFT = "https://json-schema.org/draft/2020-12/schema";

const SEARCH = {
  $schema: DRAFT,
  type: "object",
  properties: {
    to: { type: "array", items: { type: "string", format: "email" }, minItems: 1, maxItems: 3 },
    filters: { type: "array", items: { $ref: "#/$defs/filter" } },
    unit: { enum: ["C", "F"] },
    kind: { const: "mail" },
    mode: { anyOf: [{ type: "string" }, { type: "integer", minimum: 0 }] },
    pick: { oneOf: [{ type: "integer" }, { type: "number", minimum: 10 }] },
    q: { type: "string", minLength: 3, maxLength: 8, pattern: "^[a-z]+$" },
    limit: { type: "integer", minimum: 1, maximum: 50, multipleOf: 5 },
    ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
    tags: { type: "array", uniqueItems: true },
    meta: { type: "object", minProperties: 1, additionalProperties: { type: "string" } },
    not_null: { not: { type: "null" } },
  },
  required: ["to"],
  $defs: {
    filter: {
      type: "object",
      properties: { field: { type: "string" }, op: { enum: ["eq", "lt"] } },
      required: ["field", "op"],
      additionalProperties: false,
    },
  },
} as const;

function searchRegistry(): { registry: ToolRegistry; runs: unknown[] } {
  const runs: unknown[] = [];
  const registry = new ToolRegistry();
  registry.register("search", "Searches mail.", SEARCH, (args) => {
    runs.push(args);
    return "ok";
  });
  return { registry, runs };
}

const to = ["a@example.com"];

describe("JSON Schema parameters: one sentence per failure, naming the argument by its path", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "an enum inside $defs, through $ref",
      { to, filters: [{ field: "x", op: "gt" }] },
      `argument 'filters[0].op' must be one of "eq", "lt" (got "gt")`,
    ],
    ["a missing nested property", { to, filters: [{ field: "x" }] }, "missing required argument 'filters[0].op'"],
    [
      "an unknown nested key under additionalProperties: false",
      { to, filters: [{ field: "x", op: "eq", z: 1 }] },
      "unexpected argument 'filters[0].z'",
    ],
    ["a missing top-level argument", { filters: [] }, "missing required argument 'to'"],
    ["an unknown top-level key", { to, extra: 1 }, "unexpected argument 'extra'"],
    ["a wrong type", { to: "a@example.com" }, `argument 'to' must be of type array (got "a@example.com")`],
    ["too few items", { to: [] }, "argument 'to' must have at least 1 item (got 0)"],
    ["too many items", { to: [...to, ...to, ...to, ...to] }, "argument 'to' must have at most 3 items (got 4)"],
    ["a format", { to: ["nope"] }, `argument 'to[0]' must be a valid email (got "nope")`],
    ["an enum", { to, unit: "K" }, `argument 'unit' must be one of "C", "F" (got "K")`],
    ["a const", { to, kind: "sms" }, `argument 'kind' must be "mail" (got "sms")`],
    [
      "anyOf",
      { to, mode: -1 },
      `argument 'mode' must match one of {"type":"string"}, {"type":"integer","minimum":0} (got -1)`,
    ],
    [
      "oneOf matched twice",
      { to, pick: 12 },
      `argument 'pick' matches more than one of {"type":"integer"}, {"type":"number","minimum":10}; it must match exactly one (got 12)`,
    ],
    [
      "oneOf matched by none",
      { to, pick: 2.5 },
      `argument 'pick' must match exactly one of {"type":"integer"}, {"type":"number","minimum":10} (got 2.5)`,
    ],
    ["a short string", { to, q: "ab" }, "argument 'q' must be at least 3 characters long (got 2)"],
    ["a long string", { to, q: "abcdefghij" }, "argument 'q' must be at most 8 characters long (got 10)"],
    ["a pattern", { to, q: "ABC" }, `argument 'q' must match the regular expression "^[a-z]+$" (got "ABC")`],
    ["a minimum", { to, limit: 0 }, "argument 'limit' must be at least 1 (got 0)"],
    ["a maximum", { to, limit: 55 }, "argument 'limit' must be at most 50 (got 55)"],
    ["a multiple", { to, limit: 7 }, "argument 'limit' must be a multiple of 5 (got 7)"],
    ["an exclusive minimum", { to, ratio: 0 }, "argument 'ratio' must be greater than 0 (got 0)"],
    ["an exclusive maximum", { to, ratio: 1 }, "argument 'ratio' must be less than 1 (got 1)"],
    ["repeated items", { to, tags: [1, 1] }, "argument 'tags' must not contain the same item twice"],
    ["too few properties", { to, meta: {} }, "argument 'meta' must have at least 1 property"],
    ["additionalProperties with a schema", { to, meta: { a: 1 } }, "argument 'meta.a' must be of type string (got 1)"],
    ["not", { to, not_null: null }, `argument 'not_null' must not match {"type":"null"} (got null)`],
  ];
  for (const [label, args, sentence] of cases) {
    it(`${label}: the function never runs`, async () => {
      const { registry, runs } = searchRegistry();
      const out = await registry.execute("search", args);
      expect(String(out).startsWith(`ERROR: ${sentence}. search expects {"to":`)).toBe(true);
      expect(out).toContain(sentence);
      expect(runs).toEqual([]);
    });
  }

  it("runs valid arguments with its own deep copy of them", async () => {
    const { registry, runs } = searchRegistry();
    const args = { to, filters: [{ field: "x", op: "eq" }], meta: { a: "b" } };
    await expect(registry.execute("search", args)).resolves.toBe('"ok"');
    expect(runs).toEqual([args]);
    expect((runs[0] as typeof args).filters).not.toBe(args.filters);
  });

  it("is not a JSON object: the same sentence as the spec's", async () => {
    const { registry } = searchRegistry();
    for (const args of [null, [], "x", 1]) {
      await expect(registry.execute("search", args)).resolves.toMatch(/^ERROR: arguments must be a JSON object\. /);
    }
  });

  it("names keys that are not identifiers with quotes, and values JSON cannot carry", async () => {
    const registry = new ToolRegistry();
    registry.register(
      "t",
      "d",
      {
        $schema: DRAFT,
        type: "object",
        properties: { m: { type: "object", additionalProperties: { type: "string" } } },
      },
      () => 1,
    );
    await expect(registry.execute("t", { m: { "x-id": 1 } })).resolves.toMatch(
      /^ERROR: argument 'm\["x-id"\]' must be of type string \(got 1\)/,
    );
    await expect(registry.execute("t", { m: { a: () => 1 } })).resolves.toMatch(
      /^ERROR: argument 'm\.a' must be JSON data, not a function/,
    );
    await expect(registry.execute("t", { m: { a: Number.NaN } })).resolves.toMatch(/must be a finite number/);
  });

  it("refuses arguments nested too deep, and a cycle, with a sentence", async () => {
    expect(MAX_ARGS_DEPTH).toBe(REPLY_DEPTH);
    const registry = new ToolRegistry();
    registry.register("t", "d", { $schema: DRAFT, type: "object", additionalProperties: true }, () => 1);
    let deep: Record<string, unknown> = {};
    for (let depth = 0; depth < 5000; depth++) deep = { a: deep };
    await expect(registry.execute("t", deep)).resolves.toMatch(/^ERROR: arguments must not nest deeper than 64 levels/);
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    await expect(registry.execute("t", loop)).resolves.toMatch(/^ERROR: arguments must not nest deeper/);
  });
});

describe("unknown top-level keys", () => {
  const base = { $schema: DRAFT, type: "object", properties: { a: { type: "string" } } } as const;
  const allowing: [string, ToolParameters][] = [
    ["additionalProperties: true", { ...base, additionalProperties: true }],
    ["additionalProperties: {}", { ...base, additionalProperties: {} }],
    ["patternProperties", { ...base, patternProperties: { "^x": {} } }],
    ["unevaluatedProperties: true", { ...base, unevaluatedProperties: true }],
  ];
  for (const [label, schema] of allowing) {
    it(`are accepted when the root says so: ${label}`, () => {
      expect(validateArgs({ a: "x", xb: 1 }, schema)).toBeNull();
    });
  }

  it("count the properties of the schemas the root combines", () => {
    const schema: ToolParameters = {
      $schema: DRAFT,
      type: "object",
      allOf: [{ $ref: "#/$defs/named" }],
      anyOf: [{ properties: { b: { type: "number" } } }, { properties: { c: { type: "number" } } }],
      $defs: { named: { properties: { name: { type: "string" } } } },
    };
    expect(validateArgs({ name: "x", b: 1 }, schema)).toBeNull();
    expect(validateArgs({ name: "x", d: 1 }, schema)).toBe("unexpected argument 'd'");
  });

  it("are refused otherwise, after the schema's own checks", () => {
    expect(validateArgs({ b: 1 }, base)).toBe("unexpected argument 'b'");
    expect(validateArgs({ a: 1, b: 1 }, base)).toBe("argument 'a' must be of type string (got 1)");
  });
});

describe("JSON Schema parameters at registration", () => {
  const refused: [string, unknown, RegExp][] = [
    ["a root that is not an object", { $schema: DRAFT, type: "array" }, /type 'object'/],
    ["a root with no type", { $schema: DRAFT, properties: {} }, /type 'object'/],
    [
      "a bad type",
      { $schema: DRAFT, type: "object", properties: { a: { type: "text" } } },
      /'properties\.a\.type' must be one of/,
    ],
    [
      "a bad type in a list",
      { $schema: DRAFT, type: "object", properties: { a: { type: ["string", "date"] } } },
      /must be one of/,
    ],
    [
      "a $ref to nowhere",
      { $schema: DRAFT, type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      /'\$ref' "#\/\$defs\/missing" at 'properties\.a' resolves to no schema/,
    ],
    [
      "a remote $ref",
      { $schema: DRAFT, type: "object", properties: { a: { $ref: "https://example.com/s.json" } } },
      /resolves to no schema/,
    ],
    ["$dynamicRef", { $schema: DRAFT, type: "object", properties: { a: { $dynamicRef: "#x" } } }, /cannot be enforced/],
    [
      "a bad pattern",
      { $schema: DRAFT, type: "object", properties: { a: { type: "string", pattern: "(" } } },
      /valid regular expression/,
    ],
    [
      "items as a list in 2020-12",
      { $schema: DRAFT, type: "object", properties: { a: { items: [{}] } } },
      /prefixItems/,
    ],
    ["a negative minLength", { $schema: DRAFT, type: "object", properties: { a: { minLength: -1 } } }, /whole number/],
    ["an empty anyOf", { $schema: DRAFT, type: "object", properties: { a: { anyOf: [] } } }, /non-empty list/],
    [
      "required naming no property",
      { $schema: DRAFT, type: "object", properties: {}, required: ["x"] },
      /required argument 'x' is not in 'properties'/,
    ],
    ["an unknown $schema", { $schema: "https://example.com/my-dialect", type: "object" }, /names no draft/],
    [
      "data that is not JSON",
      { $schema: DRAFT, type: "object", properties: { a: { minimum: Number.POSITIVE_INFINITY } } },
      /'properties\.a\.minimum' is not/,
    ],
    ["a function inside", { $schema: DRAFT, type: "object", default: () => 1 }, /must be JSON data/],
  ];
  for (const [label, schema, message] of refused) {
    it(`refuses ${label} with a ToolSchemaError`, () => {
      const registry = new ToolRegistry();
      let thrown: unknown;
      try {
        registry.register("bad", "Bad.", schema as ToolParameters, () => null);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ToolSchemaError);
      expect(String((thrown as Error).message)).toMatch(message);
      expect(registry.specs()).toEqual([]);
    });
  }

  it("accepts draft-07 and 2019-09 schemas and validates them by their draft", () => {
    const seven = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { pair: { type: "array", items: [{ type: "string" }, { type: "number" }] } },
      definitions: { unused: { type: "string" } },
    } as const;
    expect(validateArgs({ pair: ["a", 1] }, seven)).toBeNull();
    expect(validateArgs({ pair: ["a", "b"] }, seven)).toBe(`argument 'pair[1]' must be of type number (got "b")`);
    const nine = { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object" } as const;
    expect(validateArgs({}, nine)).toBeNull();
  });

  it("shows the schema exactly as registered, and later changes to the caller's object change nothing", async () => {
    const schema = structuredClone(SEARCH) as unknown as Record<string, unknown>;
    const registry = new ToolRegistry();
    registry.register("search", "Searches.", schema as ToolParameters, () => "ok");
    const [spec] = registry.specs();
    expect(spec?.parameters).toEqual(SEARCH);
    expect(Object.getOwnPropertyNames(schema).sort()).toEqual(Object.keys(SEARCH).sort());
    (schema.properties as Record<string, unknown>).to = { type: "string" };
    schema.required = [];
    expect(registry.specs()[0]?.parameters).toEqual(SEARCH);
    expect(Object.isFrozen(registry.specs()[0]?.parameters.properties)).toBe(true);
    await expect(registry.execute("search", { to: "x" })).resolves.toMatch(/must be of type array/);
  });

  it("takes a deeply frozen schema", () => {
    const freeze = <T>(value: T): T => {
      if (typeof value === "object" && value !== null) for (const child of Object.values(value)) freeze(child);
      return Object.freeze(value);
    };
    const registry = new ToolRegistry();
    expect(() => registry.register("s", "d", freeze(structuredClone(SEARCH)), () => 1)).not.toThrow();
  });
});

describe("jsonSchema(): a JSON Schema without $schema", () => {
  const listed = { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } } as const;

  it("is draft 2020-12 unmarked too, beyond the spec's vocabulary", async () => {
    const registry = new ToolRegistry();
    registry.register("t", "d", listed, ({ tags }) => tags?.length ?? 0);
    await expect(registry.execute("t", { tags: [1] })).resolves.toMatch(
      /^ERROR: argument 'tags\[0\]' must be of type string/,
    );
    expect(() =>
      new ToolRegistry().register("t", "d", { type: "object", properties: { a: { type: "array" } } }, () => 1),
    ).toThrow(/unsupported type 'array'.*jsonSchema\(\)/);
  });

  it("is full JSON Schema when marked, and shown unchanged", async () => {
    const registry = new ToolRegistry();
    registry.register("t", "d", jsonSchema(listed), ({ tags }) => tags?.length ?? 0);
    expect(registry.specs()[0]?.parameters).toEqual(listed);
    await expect(registry.execute("t", { tags: ["a", "b"] })).resolves.toBe("2");
    await expect(registry.execute("t", { tags: [1] })).resolves.toMatch(
      /^ERROR: argument 'tags\[0\]' must be of type string/,
    );
  });

  it("takes the draft from the option, and refuses what that draft cannot enforce", () => {
    const pair = { type: "object", properties: { p: { items: [{ type: "string" }] } } } as const;
    expect(() => new ToolRegistry().register("t", "d", jsonSchema(pair), () => 1)).toThrow(ToolSchemaError);
    expect(() => new ToolRegistry().register("t", "d", jsonSchema(pair, { draft: "7" }), () => 1)).not.toThrow();
  });
});
