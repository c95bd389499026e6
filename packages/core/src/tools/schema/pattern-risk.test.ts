import { describe, expect, it } from "vitest";
import { ToolSchemaError } from "../../data/errors.js";
import type { ToolParameters } from "../../data/types.js";
import { ToolRegistry } from "../tool-registry.js";
import { patternRisk } from "./pattern-risk.js";

/** Patterns whose backtracking check doubles (or worse) with each character of a crafted argument. */
const EXPONENTIAL: [string, string][] = [
  ["^(a+)+$", "(a+)+"],
  ["^(a*)*b$", "(a*)*"],
  ["^(\\w+\\s?)*$", "(\\w+\\s?)*"],
  ["^(a|aa)*c$", "(a|aa)*"],
  ["^(?:x|y+)+$", "(?:x|y+)+"],
  ["^([a-z0-9]+)+@", "([a-z0-9]+)+"],
  ["^(?:(?:a+)b?){2,}$", "(?:(?:a+)b?){2,}"],
  ["^(?<n>\\d+)+$", "(?<n>\\d+)+"],
  ["^((ab)*)+$", "((ab)*)+"],
  ["^(\\1a+)+$", "(\\1a+)+"],
];

/** Real patterns that repeat a group but check in linear time: each repetition starts with its own character. */
const LINEAR: [string, string][] = [
  ["^[a-z]+(\\.[a-z]+)*$", `${"a.".repeat(20_000)}!`],
  ["^[a-z0-9]+(-[a-z0-9]+)*$", `${"a-".repeat(20_000)}!`],
  [
    "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$",
    `1.2.3-${"a.".repeat(20_000)}!`,
  ],
  ["^(foo|bar)+$", `${"foo".repeat(20_000)}!`],
  ["^https?://([\\w-]+\\.)+[\\w-]+(/[\\w./?%&=-]*)?$", `http://${"a.".repeat(20_000)}!`],
  ["^([A-Z][a-z]+ )*[A-Z][a-z]+$", `${"Ab ".repeat(13_000)}!`],
  ["^(a|ab)*c$", `${"ab".repeat(20_000)}!`],
  ["^(\\d{1,3}\\.){3}\\d{1,3}$", "1.2.3.4"],
  ["^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*$", `${"a.".repeat(20_000)}-`],
  ["^\\u{1F600}+$", "😀".repeat(20_000)],
];

function registered(parameters: Record<string, unknown>): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("find", "Finds.", parameters as ToolParameters, () => "ok");
  return registry;
}

describe("patternRisk", () => {
  for (const [pattern, part] of EXPONENTIAL) {
    it(`finds ${pattern}`, () => expect(patternRisk(pattern)).toBe(part));
  }
  for (const [pattern] of LINEAR) {
    it(`lets ${pattern} through`, () => expect(patternRisk(pattern)).toBeNull());
  }
});

describe("a pattern whose check can take exponential time", () => {
  it("is refused at registration, naming where it is, so no call can hold the event loop", () => {
    const parameters = { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } } };
    expect(() => registered(parameters)).toThrow(ToolSchemaError);
    expect(() => registered(parameters)).toThrow(
      /^find: 'properties\.q\.pattern' "\^\(a\+\)\+\$" can take exponential time to check: "\(a\+\)\+" repeats/,
    );
  });

  it("is refused as a patternProperties key, in propertyNames and under $defs too", () => {
    const places = [
      { type: "object", patternProperties: { "^(a+)+$": { type: "string" } } },
      { type: "object", properties: { m: { type: "object", propertyNames: { pattern: "(x+x+)+y" } } } },
      {
        type: "object",
        properties: { q: { $ref: "#/$defs/word" } },
        $defs: { word: { type: "string", pattern: "^(\\w+\\s?)*$" } },
      },
    ];
    for (const parameters of places) expect(() => registered(parameters)).toThrow(/can take exponential time/);
  });

  it("refuses a pattern nested too deeply to be checked, with a ToolSchemaError", () => {
    const deep = `${"(".repeat(20_000)}a${")".repeat(20_000)}`;
    const parameters = { type: "object", properties: { q: { type: "string", pattern: deep } } };
    expect(() => registered(parameters)).toThrow(/^find: 'properties\.q\.pattern' .* nests its groups too deeply/);
  });

  it("leaves linear patterns enforced: crafted arguments of 40,000 characters are checked at once", async () => {
    const started = performance.now();
    for (const [pattern, crafted] of LINEAR) {
      const registry = registered({ type: "object", properties: { q: { type: "string", pattern } } });
      const expected = /[!-]$/.test(crafted) ? /^ERROR: argument 'q' must match the regular expression/ : /^"ok"$/;
      await expect(registry.execute("find", { q: crafted })).resolves.toMatch(expected);
    }
    // An exponential check would not end in the test's lifetime; a linear one takes milliseconds.
    // The bound is only there to fail loudly on a machine where something grew far beyond linear.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
