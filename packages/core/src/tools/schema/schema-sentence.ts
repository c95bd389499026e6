import type { OutputUnit, Schema } from "@cfworker/json-schema";
import { argumentNamed, formatPath, pointerSegments, valueAt } from "../../data/index.js";

/** The validator's index of a schema's parts by absolute URI. */
export type SchemaLookup = Record<string, Schema | boolean>;

/** What a sentence is made from besides the validator's output. */
export interface SentenceContext {
  readonly root: Schema;
  readonly lookup: SchemaLookup;
  readonly args: unknown;
}

/** Keywords that only say a subschema failed: the sentence is about the failure below them. */
const PASS_THROUGH = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "$ref",
  "$recursiveRef",
  "allOf",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependencies",
  "propertyNames",
]);

/**
 * One sentence for the first failure the validator found, written for the model: which argument
 * (by path, `filters[0].op`), what is wrong with it, and what a valid value looks like. Never the
 * validator's own text.
 */
export function sentenceOf(errors: readonly OutputUnit[], context: SentenceContext): string {
  let previous = "";
  for (const unit of errors) {
    if (!PASS_THROUGH.has(unit.keyword)) return describe(unit, previous, context);
    previous = unit.keyword;
  }
  const last = errors.at(-1);
  const path = last === undefined ? "" : formatPath(valueAt(context.args, pointerSegments(last.instanceLocation)).path);
  return `${argumentNamed(path)} does not match its schema`;
}

function describe(unit: OutputUnit, previous: string, context: SentenceContext): string {
  const { value, path: segments } = valueAt(context.args, pointerSegments(unit.instanceLocation));
  const path = formatPath(segments);
  const named = argumentNamed(path);
  const got = `(got ${shortJson(value)})`;
  const schema = schemaAt(context, unit.keywordLocation);
  const keywordValue: unknown = schema?.[unit.keyword];
  switch (unit.keyword) {
    case "false":
      return previous === "additionalProperties" || previous === "unevaluatedProperties"
        ? `unexpected argument '${path}'`
        : `${named} is not allowed`;
    case "type":
      return `${named} must be of type ${listOf(keywordValue, " or ")} ${got}`;
    case "enum":
      return `${named} must be one of ${listOf(keywordValue, ", ", shortJson)} ${got}`;
    case "const":
      return `${named} must be ${shortJson(keywordValue)} ${got}`;
    case "required":
    case "dependentRequired":
      return missingSentence(unit.keyword, schema, value, segments);
    case "anyOf":
    case "oneOf":
      return branchesSentence(unit, named, got, keywordValue);
    case "not":
      return `${named} must not match ${shortJson(keywordValue, 200)} ${got}`;
    default:
      return `${named} ${limitPhrase(unit.keyword, keywordValue, value)}`;
  }
}

function missingSentence(
  keyword: string,
  schema: Schema | undefined,
  value: unknown,
  segments: readonly (string | number)[],
): string {
  const present = (key: string) => typeof value === "object" && value !== null && Object.hasOwn(value, key);
  if (keyword === "required") {
    const required: unknown = schema?.required;
    const missing = Array.isArray(required) ? required.find((key) => !present(String(key))) : undefined;
    return `missing required argument '${formatPath([...segments, String(missing)])}'`;
  }
  const rules = Object.entries((schema?.dependentRequired ?? {}) as Record<string, string[]>);
  for (const [given, needed] of rules) {
    const missing = present(given) ? needed.find((key) => !present(key)) : undefined;
    if (missing !== undefined) {
      return `missing argument '${formatPath([...segments, missing])}', required when '${formatPath([...segments, given])}' is given`;
    }
  }
  return `${argumentNamed(formatPath(segments))} is missing an argument its schema requires`;
}

function branchesSentence(unit: OutputUnit, named: string, got: string, branches: unknown): string {
  const options = Array.isArray(branches) ? branches.map((branch) => shortJson(branch, 160)).join(", ") : "";
  // The validator's text is only read to tell "none matched" from "several matched".
  const matches = Number(/\((\d+) matches\)/.exec(unit.error)?.[1] ?? 0);
  if (unit.keyword === "oneOf" && matches > 1) {
    return `${named} matches more than one of ${options}; it must match exactly one ${got}`;
  }
  return `${named} must match ${unit.keyword === "oneOf" ? "exactly one" : "one"} of ${options} ${got}`;
}

function limitPhrase(keyword: string, limit: unknown, value: unknown): string {
  const size = typeof value === "string" ? [...value].length : Array.isArray(value) ? value.length : undefined;
  const count = (noun: string) => `${limit} ${noun}${limit === 1 ? "" : "s"}`;
  const got = `(got ${size ?? shortJson(value)})`;
  const phrases: Record<string, string> = {
    minimum: `must be at least ${limit} (got ${shortJson(value)})`,
    maximum: `must be at most ${limit} (got ${shortJson(value)})`,
    exclusiveMinimum: `must be greater than ${limit} (got ${shortJson(value)})`,
    exclusiveMaximum: `must be less than ${limit} (got ${shortJson(value)})`,
    multipleOf: `must be a multiple of ${limit} (got ${shortJson(value)})`,
    minLength: `must be at least ${count("character")} long ${got}`,
    maxLength: `must be at most ${count("character")} long ${got}`,
    pattern: `must match the regular expression ${shortJson(limit)} (got ${shortJson(value)})`,
    format: `must be a valid ${limit} (got ${shortJson(value)})`,
    minItems: `must have at least ${count("item")} ${got}`,
    maxItems: `must have at most ${count("item")} ${got}`,
    uniqueItems: "must not contain the same item twice",
    contains: `must contain an item that matches ${shortJson(limit, 160)}`,
    minContains: `must contain at least ${limit} matching items`,
    maxContains: `must contain at most ${limit} matching items`,
    minProperties: `must have at least ${count("property")}`.replace("propertys", "properties"),
    maxProperties: `must have at most ${count("property")}`.replace("propertys", "properties"),
  };
  return Object.hasOwn(phrases, keyword) ? (phrases[keyword] as string) : `does not satisfy '${keyword}'`;
}

/** The schema that holds the keyword at `keywordLocation`, following `$ref` as the validator did. */
function schemaAt({ root, lookup }: SentenceContext, keywordLocation: string): Schema | undefined {
  const segments = pointerSegments(keywordLocation).slice(0, -1);
  let current: unknown = root;
  for (const segment of segments) {
    if (typeof current !== "object" || current === null) return undefined;
    const schema = current as Schema;
    if (segment === "$ref") current = lookup[String(schema.__absolute_ref__ ?? schema.$ref)];
    else if (segment === "$recursiveRef") current = lookup[String(schema.__absolute_recursive_ref__)];
    else current = Object.hasOwn(schema, segment) ? (schema as Record<string, unknown>)[segment] : undefined;
  }
  return typeof current === "object" && current !== null ? (current as Schema) : undefined;
}

function listOf(value: unknown, separator: string, format: (item: unknown) => string = String): string {
  return Array.isArray(value) ? value.map((item) => format(item)).join(separator) : format(value);
}

/** Compact JSON of `value`, cut to `max` characters; `undefined` for a value that is absent. */
export function shortJson(value: unknown, max = 60): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
