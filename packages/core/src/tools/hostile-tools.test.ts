import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolCall } from "../data/types.js";
import { ToolRegistry } from "./tool-registry.js";

/** A Proxy every one of whose traps throws. */
function trap(): object {
  const fail = () => {
    throw new Error("trapped");
  };
  return new Proxy({}, { get: fail, getPrototypeOf: fail, ownKeys: fail, has: fail, getOwnPropertyDescriptor: fail });
}

function returning(value: () => unknown): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("t", "d", { type: "object" }, value);
  return registry;
}

describe("a tool that returns a hostile value gives an ERROR: observation, never a rejection", () => {
  const values: [string, () => unknown][] = [
    ["a Proxy whose traps throw", () => trap()],
    [
      "a getter that throws",
      () => ({
        get x() {
          throw new Error("getter");
        },
      }),
    ],
    [
      "a toJSON that throws",
      () => ({
        toJSON() {
          throw new Error("toJSON");
        },
      }),
    ],
    ["a toJSON that returns a BigInt", () => ({ toJSON: () => 10n })],
    ["a toJSON that returns nothing", () => ({ toJSON: () => undefined })],
    ["a toJSON that returns a function", () => ({ toJSON: () => () => 1 })],
    ["a toJSON that returns a hostile Proxy", () => ({ toJSON: () => trap() })],
    ["a BigInt", () => 10n],
    [
      "a cycle",
      () => {
        const loop: Record<string, unknown> = {};
        loop.self = loop;
        return loop;
      },
    ],
    ["a function", () => () => 1],
    ["a promise of a hostile Proxy", () => Promise.resolve(trap())],
    [
      "a thenable whose then getter throws",
      () => ({
        // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is what is under test.
        get then() {
          throw trap();
        },
      }),
    ],
  ];
  for (const [label, fn] of values) {
    it(label, async () => {
      const out = await returning(fn).execute("t", {});
      expect(out).toMatch(/^ERROR: t (returned a value|failed)/);
    });
  }
});

describe("a tool that throws a hostile value gives an ERROR: observation", () => {
  const thrown: [string, () => unknown][] = [
    ["a Proxy whose traps throw", () => trap()],
    [
      "an Error whose name getter returns a hostile Proxy",
      () => {
        const error = new Error("x");
        Object.defineProperty(error, "name", { get: () => trap() });
        return error;
      },
    ],
    [
      "a revoked Proxy",
      () => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return proxy;
      },
    ],
  ];
  for (const [label, make] of thrown) {
    it(`throws ${label}`, async () => {
      const throwing = returning(() => {
        throw make();
      });
      await expect(throwing.execute("t", {})).resolves.toMatch(/^ERROR: t failed: /);
      const rejecting = returning(() => Promise.reject(make()));
      await expect(rejecting.execute("t", {})).resolves.toMatch(/^ERROR: t failed: /);
    });
  }
});

describe("hostile arguments and calls never make execute or executeCall reject", () => {
  const kinds = {
    subset: { type: "object", properties: { a: { type: "string" } } },
    json: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", additionalProperties: true },
    zod: z.looseObject({}),
  } as const;
  for (const [kind, parameters] of Object.entries(kinds)) {
    it(`${kind}: a Proxy, a throwing getter or a revoked Proxy as arguments`, async () => {
      let runs = 0;
      const registry = new ToolRegistry();
      registry.register("t", "d", parameters, () => (runs += 1));
      const revoked = Proxy.revocable({}, {});
      revoked.revoke();
      for (const args of [
        trap(),
        {
          get a() {
            throw new Error("getter");
          },
        },
        revoked.proxy,
      ]) {
        await expect(registry.execute("t", args)).resolves.toMatch(/^ERROR: /);
        expect(registry.wouldRun({ id: "c", name: "t", args: args as Record<string, unknown> })).toBe(false);
      }
      expect(runs).toBe(0);
    });
  }

  it("a call object whose getters throw", async () => {
    const registry = returning(() => 1);
    const call = {
      id: "c",
      get name(): string {
        throw new Error("name");
      },
      args: {},
    } as ToolCall;
    await expect(registry.executeCall(call)).resolves.toEqual({
      kind: "invalid-args",
      content: expect.stringMatching(/^ERROR: the call could not be read: Error: name/),
    });
    await expect(registry.executeCall(trap() as ToolCall)).resolves.toEqual({
      kind: "invalid-args",
      content: expect.stringMatching(/^ERROR: /),
    });
  });

  it("a name that is not a string", async () => {
    const registry = returning(() => 1);
    await expect(registry.execute(Symbol("t") as never, {})).resolves.toMatch(/^ERROR: unknown tool /);
    await expect(registry.execute(trap() as never, {})).resolves.toMatch(/^ERROR: unknown tool /);
  });
});
