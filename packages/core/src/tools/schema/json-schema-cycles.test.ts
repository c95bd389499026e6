import { describe, expect, it } from "vitest";
import { ToolSchemaError } from "../../data/errors.js";
import type { ToolParameters } from "../../data/types.js";
import { ToolRegistry } from "../tool-registry.js";

const TREE = {
  type: "object",
  properties: { root: { $ref: "#/$defs/node" } },
  required: ["root"],
  $defs: {
    node: {
      type: "object",
      properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
      required: ["label"],
      additionalProperties: false,
    },
  },
} as const;

function register(parameters: unknown): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("walk", "Walks a tree.", parameters as ToolParameters, () => "ok");
  return registry;
}

function refusal(parameters: unknown): unknown {
  try {
    register(parameters);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("a $ref loop that never goes into the arguments is refused at registration", () => {
  const loops: [string, unknown, RegExp][] = [
    ["$ref: '#' at the root", { type: "object", $ref: "#" }, /'\(root\)' → '\(root\)'/],
    [
      "a → b → a with nothing between",
      {
        type: "object",
        properties: { q: { $ref: "#/$defs/a" } },
        $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } },
      },
      /'\$defs\.a' → '\$defs\.b' → '\$defs\.a'/,
    ],
    ["a loop through allOf", { type: "object", allOf: [{ $ref: "#" }] }, /'\(root\)' → 'allOf\.0' → '\(root\)'/],
    [
      "a loop through anyOf inside a property",
      {
        type: "object",
        properties: { q: { $ref: "#/$defs/x" } },
        $defs: { x: { anyOf: [{ type: "string" }, { $ref: "#/$defs/x" }] } },
      },
      /'\$defs\.x' → '\$defs\.x\.anyOf\.1' → '\$defs\.x'/,
    ],
  ];
  for (const [label, parameters, where] of loops) {
    it(`${label}: ToolSchemaError naming the tool and the loop`, () => {
      const error = refusal(parameters);
      expect(error).toBeInstanceOf(ToolSchemaError);
      expect((error as Error).message).toMatch(/^walk: parameters refer to themselves in a loop/);
      expect((error as Error).message).toMatch(where);
    });
  }
});

describe("a recursion guarded by properties or items is enforced", () => {
  it("checks a tree at every depth, naming the argument by its path", async () => {
    const registry = register(TREE);
    const deep = { label: "a", children: [{ label: "b", children: [{ label: "c", children: [] }] }] };
    await expect(registry.execute("walk", { root: deep })).resolves.toBe('"ok"');
    const bad = { label: "a", children: [{ label: "b", children: [{ label: 3 }] }] };
    await expect(registry.execute("walk", { root: bad })).resolves.toMatch(
      /^ERROR: argument 'root\.children\[0\]\.children\[0\]\.label' must be of type string \(got 3\)/,
    );
  });

  it("takes a list that refers to the root through a property", async () => {
    const list = { type: "object", properties: { value: { type: "integer" }, next: { $ref: "#" } } };
    const registry = register(list);
    await expect(registry.execute("walk", { value: 1, next: { value: 2, next: { value: 3 } } })).resolves.toBe('"ok"');
    await expect(registry.execute("walk", { value: 1, next: { next: { value: "x" } } })).resolves.toMatch(
      /^ERROR: argument 'next\.next\.value' must be of type integer/,
    );
  });

  it("leaves alone a loop among definitions nothing refers to", () => {
    const unused = { type: "object", properties: { q: { type: "string" } }, $defs: { a: { $ref: "#/$defs/a" } } };
    expect(() => register(unused)).not.toThrow();
  });
});
