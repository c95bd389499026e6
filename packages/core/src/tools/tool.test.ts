import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { ToolSchemaError } from "../data/errors.js";
import { jsonSchema } from "./schema/json-schema-parameters.js";
import { type Tool, tool } from "./tool.js";
import { ToolRegistry } from "./tool-registry.js";

const ping = tool({
  name: "ping",
  description: "Health check.",
  parameters: { type: "object" },
  execute: () => "pong",
});

describe("tool()", () => {
  it("infers the arguments from a zod schema, a literal subset schema and a marked JSON Schema", () => {
    tool({
      name: "z",
      description: "d",
      parameters: z.object({ city: z.string(), days: z.number().optional() }),
      execute: (args) => expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number | undefined }>(),
    });
    tool({
      name: "subset",
      description: "d",
      parameters: {
        type: "object",
        properties: { city: { type: "string" }, n: { type: "integer" } },
        required: ["city"],
      },
      execute: (args) => expectTypeOf(args).toEqualTypeOf<{ city: string; n?: number }>(),
    });
    tool({
      name: "json",
      description: "d",
      parameters: jsonSchema({
        type: "object",
        properties: { tags: { type: "array", items: { type: "string" } }, unit: { enum: ["C", "F"] } },
        required: ["tags"],
      }),
      execute: (args) => expectTypeOf(args).toEqualTypeOf<{ tags: string[]; unit?: "C" | "F" }>(),
    });
    tool({
      name: "declared",
      description: "d",
      parameters: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { at: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] } },
        required: ["at"],
      },
      execute: (args) => expectTypeOf(args).toEqualTypeOf<{ at: { lat: number } }>(),
    });
  });

  it("carries every option and is frozen", () => {
    const made = tool({
      name: "poll",
      description: "Polls.",
      parameters: { type: "object" },
      execute: () => 1,
      needsApproval: true,
      idempotent: true,
      repeatable: true,
      timeoutMs: 50,
      maxResultChars: 100,
    });
    expect(made).toMatchObject({
      needsApproval: true,
      idempotent: true,
      repeatable: true,
      timeoutMs: 50,
      maxResultChars: 100,
    });
    expect(Object.isFrozen(made)).toBe(true);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ["a description that is not a string", { description: undefined }, /description must be a string/],
    ["a name that is not a string", { name: 7 }, /name must be a string/],
    ["a bad name", { name: "get weather" }, /must be 1-64 letters/],
    ["parameters of the wrong kind", { parameters: "city" }, /type 'object'/],
    ["an execute that is not a function", { execute: "run" }, /execute must be a function/],
    ["timeoutMs as text", { timeoutMs: "50" }, /timeoutMs must be milliseconds.*got "50"/],
    ["maxResultChars as text", { maxResultChars: "9" }, /maxResultChars must be a whole number/],
    ["needsApproval as text", { needsApproval: "yes" }, /needsApproval must be true or false/],
    ["idempotent as a number", { idempotent: 1 }, /idempotent must be true or false/],
    ["repeatable as null", { repeatable: null }, /repeatable must be true or false/],
    ["an unknown key", { timeout: 50 }, /unknown key 'timeout'/],
  ];
  for (const [label, change, message] of bad) {
    it(`refuses ${label} with a ToolSchemaError, as a plain-JS caller might pass it`, () => {
      const definition = { name: "t", description: "d", parameters: { type: "object" }, execute: () => 1, ...change };
      expect(() => tool(definition as never)).toThrow(ToolSchemaError);
      expect(() => tool(definition as never)).toThrow(message);
      expect(() => new ToolRegistry().add(definition as never)).toThrow(message);
    });
  }
});

describe("new ToolRegistry(tools) and add()", () => {
  const echo = tool({
    name: "echo",
    description: "Echo.",
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  });

  it("holds the tools in order; add returns the registry", async () => {
    const registry = new ToolRegistry([ping]);
    expect(registry.add(echo)).toBe(registry);
    expect(registry.specs().map((spec) => spec.name)).toEqual(["ping", "echo"]);
    await expect(registry.execute("echo", { text: "hi" })).resolves.toBe('"hi"');
  });

  it("takes any iterable, and plain objects of a tool's shape", () => {
    const plain = { name: "plain", description: "d", parameters: { type: "object" as const }, execute: () => 1 };
    const registry = new ToolRegistry(new Set<Tool>([ping, plain]));
    expect(registry.specs().map((spec) => spec.name)).toEqual(["ping", "plain"]);
  });

  it("throws on a duplicate name and then adds none of the tools given", () => {
    const registry = new ToolRegistry([ping]);
    expect(() => registry.add(echo, ping)).toThrow(/tool 'ping' is already registered/);
    expect(() => registry.add(echo, echo)).toThrow(/tool 'echo' is already registered/);
    expect(() => new ToolRegistry([echo, echo])).toThrow(ToolSchemaError);
    expect(registry.specs().map((spec) => spec.name)).toEqual(["ping"]);
  });

  it("register takes the same three kinds of parameters", async () => {
    const registry = new ToolRegistry();
    registry.register("a", "d", { type: "object", properties: { x: { type: "string" } } }, ({ x }) => x);
    registry.register("b", "d", jsonSchema({ type: "object", properties: { x: { type: "array" } } }), ({ x }) => x);
    registry.register("c", "d", z.object({ x: z.number() }), ({ x }) => x + 1);
    await expect(registry.execute("a", { x: "s" })).resolves.toBe('"s"');
    await expect(registry.execute("b", { x: [1] })).resolves.toBe("[1]");
    await expect(registry.execute("c", { x: 1 })).resolves.toBe("2");
  });

  it("register refuses a description that is not a string and options of the wrong kind", () => {
    const registry = new ToolRegistry();
    const fn = () => 1;
    expect(() => registry.register("t", undefined as never, { type: "object" }, fn)).toThrow(
      /description must be a string/,
    );
    expect(() => registry.register("t", "d", { type: "object" }, fn, { timeoutMs: "50" as never })).toThrow(/got "50"/);
    expect(() => registry.register("t", "d", { type: "object" }, fn, { retries: 2 } as never)).toThrow(
      /unknown option 'retries'/,
    );
    expect(() => registry.register("t", "d", { type: "object" }, fn, null as never)).toThrow(
      /options must be an object/,
    );
    expect(() => registry.register(7 as never, "d", { type: "object" }, fn)).toThrow(/name must be a string/);
    expect(registry.specs()).toEqual([]);
  });
});

describe("option accessors", () => {
  it("list idempotent, repeatable and approval tools by name, in registration order", () => {
    const make = (name: string, options: object) =>
      tool({ name, description: "d", parameters: { type: "object" }, execute: () => 1, ...options });
    const registry = new ToolRegistry([
      make("page", { repeatable: true, idempotent: true }),
      make("send", { needsApproval: true }),
      make("roll", { repeatable: true }),
      make("get", { idempotent: true }),
      make("plain", { repeatable: false, idempotent: false }),
    ]);
    expect(registry.idempotentTools()).toEqual(["page", "get"]);
    expect(registry.repeatableTools()).toEqual(["page", "roll"]);
    expect(registry.approvalRequired()).toEqual(["send"]);
    expect(registry.isIdempotent("get")).toBe(true);
    expect(registry.isIdempotent("roll")).toBe(false);
    expect(new ToolRegistry().repeatableTools()).toEqual([]);
  });
});
