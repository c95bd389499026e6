import { describe, expect, it } from "vitest";
import { asks, final, runAgent, scriptedModel, ToolRegistry, toolCall, validateArgs } from "../../src/index.js";
import { makeWeatherRegistry } from "../../src/testing.js";

const AVAILABLE = "Available tools: ['c_to_f', 'get_weather']";
const WEATHER_EXPECTS = 'get_weather expects {"city":{"type":"string"}}';

/** A registry with one tool `t` of the given result or behaviour and no arguments. */
function oneTool(fn: () => unknown): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("t", "A tool under test.", { type: "object" }, fn);
  return registry;
}

/** A registry with one required argument `v` of `type`, and a count of real runs. */
function typedTool(type: "string" | "integer" | "number" | "boolean") {
  const registry = new ToolRegistry();
  const ran: unknown[] = [];
  registry.register("typed", "Echoes v.", { type: "object", properties: { v: { type } }, required: ["v"] }, ({ v }) => {
    ran.push(v);
    return v;
  });
  const refusal = `ERROR: argument 'v' must be of type ${type}. typed expects {"v":{"type":"${type}"}}`;
  return { registry, ran, refusal };
}

describe("names that exist on every JavaScript object", () => {
  for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
    it(`'${name}' is an unknown tool`, async () => {
      const { registry, runs } = makeWeatherRegistry();
      await expect(registry.execute(name, {})).resolves.toBe(`ERROR: unknown tool '${name}'. ${AVAILABLE}`);
      expect(runs).toEqual([]);
    });
  }
});

describe("argument keys that exist on every JavaScript object", () => {
  it("an own '__proto__' key is an unexpected argument and pollutes nothing", async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const { registry, runs } = makeWeatherRegistry();
    const args: unknown = JSON.parse('{"city":"Pune","__proto__":{"polluted":true}}');
    expect(Object.hasOwn(args as object, "__proto__")).toBe(true);

    await expect(registry.execute("get_weather", args)).resolves.toBe(
      `ERROR: unexpected argument '__proto__'. ${WEATHER_EXPECTS}`,
    );
    expect(validateArgs(args, registry.specs()[0]?.parameters ?? { type: "object" })).toBe(
      "unexpected argument '__proto__'",
    );
    expect(runs).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it("an own 'constructor' key is an unexpected argument", async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const { registry, runs } = makeWeatherRegistry();
    await expect(registry.execute("get_weather", { city: "Pune", constructor: "x" })).resolves.toBe(
      `ERROR: unexpected argument 'constructor'. ${WEATHER_EXPECTS}`,
    );
    await expect(registry.execute("get_weather", { city: "Pune", toString: 1 })).resolves.toBe(
      `ERROR: unexpected argument 'toString'. ${WEATHER_EXPECTS}`,
    );
    expect(runs).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  });

  it("a required argument named like an inherited member is still missing when absent", async () => {
    const registry = new ToolRegistry();
    let runs = 0;
    registry.register(
      "echo",
      "Echoes toString.",
      { type: "object", properties: { toString: { type: "string" as const } }, required: ["toString"] },
      () => {
        runs += 1;
        return "ran";
      },
    );
    await expect(registry.execute("echo", {})).resolves.toBe(
      `ERROR: missing required argument 'toString'. echo expects {"toString":{"type":"string"}}`,
    );
    await expect(registry.execute("echo", { toString: "ok" })).resolves.toBe('"ran"');
    expect(runs).toBe(1);
  });
});

describe("arguments that are not a JSON object", () => {
  const hostile: [string, unknown][] = [
    ["null", null],
    ["an array", []],
    ["an array with an index key", ["Pune"]],
    ["a string", "Pune"],
    ["a number", 30],
    ["undefined", undefined],
  ];
  for (const [label, args] of hostile) {
    it(`${label} is refused before anything runs`, async () => {
      const { registry, runs } = makeWeatherRegistry();
      await expect(registry.execute("get_weather", args)).resolves.toBe(
        `ERROR: arguments must be a JSON object. ${WEATHER_EXPECTS}`,
      );
      // A tool with nothing required catches it too: the object check is its own rule.
      let pings = 0;
      const ping = oneTool(() => {
        pings += 1;
        return "pong";
      });
      await expect(ping.execute("t", args)).resolves.toBe("ERROR: arguments must be a JSON object. t expects {}");
      expect(runs).toEqual([]);
      expect(pings).toBe(0);
    });
  }
});

describe("numbers, integers and booleans", () => {
  it("integer refuses 1.5 and accepts 2 and -0", async () => {
    const { registry, ran, refusal } = typedTool("integer");
    await expect(registry.execute("typed", { v: 1.5 })).resolves.toBe(refusal);
    await expect(registry.execute("typed", { v: 2 })).resolves.toBe("2");
    await expect(registry.execute("typed", { v: -0 })).resolves.toBe("0");
    expect(ran).toEqual([2, -0]);
  });

  for (const type of ["number", "integer"] as const) {
    it(`${type} refuses NaN, Infinity and -Infinity`, async () => {
      const { registry, ran, refusal } = typedTool(type);
      for (const v of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        await expect(registry.execute("typed", { v })).resolves.toBe(refusal);
      }
      expect(ran).toEqual([]);
    });

    it(`${type} refuses booleans and the string "30"`, async () => {
      const { registry, ran, refusal } = typedTool(type);
      for (const v of [true, false, "30", null]) {
        await expect(registry.execute("typed", { v })).resolves.toBe(refusal);
      }
      await expect(registry.execute("typed", { v: 30 })).resolves.toBe("30");
      expect(ran).toEqual([30]);
    });
  }

  it("boolean refuses 1, 0 and the string 'true'", async () => {
    const { registry, ran, refusal } = typedTool("boolean");
    for (const v of [1, 0, "true"]) {
      await expect(registry.execute("typed", { v })).resolves.toBe(refusal);
    }
    await expect(registry.execute("typed", { v: false })).resolves.toBe("false");
    expect(ran).toEqual([false]);
  });
});

describe("results JSON cannot carry", () => {
  it("undefined becomes null", async () => {
    await expect(oneTool(() => undefined).execute("t", {})).resolves.toBe("null");
    await expect(oneTool(async () => undefined).execute("t", {})).resolves.toBe("null");
  });

  it("a BigInt is an error observation", async () => {
    const out = await oneTool(() => 10n).execute("t", {});
    expect(String(out).startsWith("ERROR: t returned a value that cannot be sent as JSON: TypeError:")).toBe(true);
  });

  it("a circular object is an error observation", async () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    const out = await oneTool(() => loop).execute("t", {});
    expect(String(out).startsWith("ERROR: t returned a value that cannot be sent as JSON: TypeError:")).toBe(true);
  });

  it("a function or a symbol still gives a string", async () => {
    await expect(oneTool(() => () => 1).execute("t", {})).resolves.toEqual(expect.any(String));
    await expect(oneTool(() => Symbol("s")).execute("t", {})).resolves.toEqual(expect.any(String));
  });
});

describe("tools that fail in odd ways", () => {
  const failures: [string, () => unknown, string][] = [
    [
      "throws a string",
      () => {
        throw "boom";
      },
      `threw a non-Error value: "boom"`,
    ],
    [
      "throws null",
      () => {
        throw null;
      },
      "threw a non-Error value: null",
    ],
    [
      "throws undefined",
      () => {
        throw undefined;
      },
      "threw a non-Error value: undefined",
    ],
    [
      "throws a plain object",
      () => {
        throw { code: 42 };
      },
      `threw a non-Error value: {"code":42}`,
    ],
    ["rejects with an Error", () => Promise.reject(new Error("nope")), "Error: nope"],
    ["rejects with null", () => Promise.reject(null), "threw a non-Error value: null"],
  ];
  for (const [label, fn, detail] of failures) {
    it(`a tool that ${label} gives an observation`, async () => {
      const p = oneTool(fn).execute("t", {});
      await expect(p).resolves.toBe(`ERROR: t failed: ${detail}`);
    });
  }

  it("a tool that throws a symbol or a circular object still gives an observation", async () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    for (const thrown of [Symbol("s"), loop, 10n]) {
      const out = await oneTool(() => {
        throw thrown;
      }).execute("t", {});
      expect(String(out).startsWith("ERROR: t failed:")).toBe(true);
    }
  });

  it("an Error whose message getter throws still gives an observation", async () => {
    const nasty = new Error("x");
    Object.defineProperty(nasty, "message", {
      get() {
        throw new Error("gotcha");
      },
    });
    const out = await oneTool(() => {
      throw nasty;
    }).execute("t", {});
    expect(String(out).startsWith("ERROR: t failed:")).toBe(true);
  });
});

describe("a tool that mutates its arguments", () => {
  it("does not change the call recorded in the trace", async () => {
    const registry = new ToolRegistry();
    registry.register(
      "mut",
      "Scribbles on its arguments.",
      { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      (args: Record<string, unknown>) => {
        args.city = "Hacked";
        args.extra = 1;
        return "ok";
      },
    );
    const model = scriptedModel([asks(toolCall("c1", "mut", { city: "Pune" })), final("done")]);
    const r = await runAgent("Scribble.", model, registry);

    const assistant = r.messages[2];
    expect(assistant?.role).toBe("assistant");
    expect(assistant?.role === "assistant" ? assistant.toolCalls : null).toEqual([
      { id: "c1", name: "mut", args: { city: "Pune" } },
    ]);
    expect(model.seen[1]?.[2]).toEqual(assistant);
    expect(r.messages[3]).toMatchObject({ role: "tool", toolCallId: "c1", name: "mut" });
    expect(r.status).toBe("done");
  });
});
