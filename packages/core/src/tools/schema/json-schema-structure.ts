import {
  type Schema,
  type SchemaDraft,
  schemaArrayKeyword,
  schemaKeyword,
  schemaMapKeyword,
} from "@cfworker/json-schema";
import { isPlainObject } from "../../data/index.js";
import { patternRisk } from "./pattern-risk.js";
import { shortJson } from "./schema-sentence.js";

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const COUNTS = [
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minContains",
  "maxContains",
];
const SINGLE = [
  "not",
  "if",
  "then",
  "else",
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "propertyNames",
];
const MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
/** Keywords the validator does not implement: a schema using them would be checked less than it says. */
const UNENFORCED = ["$dynamicRef", "$dynamicAnchor"];

/**
 * Checks the value of every keyword the validator acts on, in every subschema, so that a schema
 * which would be enforced differently than it reads (a misspelt type, a bad pattern, `items` as an
 * array in 2020-12) is refused now; `fail` throws with the problem and its location.
 */
export function checkStructure(root: Schema, draft: SchemaDraft, fail: (problem: string) => never): void {
  eachSchema(root, "", (schema, location) => {
    const at = (keyword: string) => `'${location === "" ? keyword : `${location}.${keyword}`}'`;
    const problem = problemOf(schema, draft, at);
    if (problem !== null) fail(problem);
  });
}

function problemOf(schema: Schema, draft: SchemaDraft, at: (keyword: string) => string): string | null {
  const type: unknown = schema.type;
  if (type !== undefined && !isTypeList(type)) {
    return `${at("type")} must be one of ${[...TYPES].join(", ")} (or a list of them); got ${JSON.stringify(type)}`;
  }
  for (const keyword of UNENFORCED) {
    if (schema[keyword] !== undefined)
      return `${at(keyword)} is not supported by the validator, so it cannot be enforced`;
  }
  if (schema.$ref !== undefined && typeof schema.$ref !== "string") return `${at("$ref")} must be a string`;
  for (const keyword of COUNTS) {
    const value: unknown = schema[keyword];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) {
      return `${at(keyword)} must be a whole number, 0 or more`;
    }
  }
  for (const keyword of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
    const value: unknown = schema[keyword];
    const draft4Flag = draft === "4" && keyword.startsWith("exclusive") && typeof value === "boolean";
    if (value !== undefined && typeof value !== "number" && !draft4Flag) return `${at(keyword)} must be a number`;
  }
  if (schema.multipleOf !== undefined && !((schema.multipleOf as number) > 0))
    return `${at("multipleOf")} must be above 0`;
  if (schema.required !== undefined && !isStringList(schema.required))
    return `${at("required")} must be a list of names`;
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) return `${at("enum")} must be a list of values`;
  if (schema.pattern !== undefined) {
    const problem = patternProblem(schema.pattern);
    if (problem !== null) return `${at("pattern")} ${problem}`;
  }
  return structureOf(schema, draft, at);
}

function structureOf(schema: Schema, draft: SchemaDraft, at: (keyword: string) => string): string | null {
  for (const keyword of ["allOf", "anyOf", "oneOf", "prefixItems"]) {
    const value: unknown = schema[keyword];
    if (value !== undefined && !(Array.isArray(value) && value.length > 0 && value.every(isSchema))) {
      return `${at(keyword)} must be a non-empty list of schemas`;
    }
  }
  for (const keyword of SINGLE) {
    if (schema[keyword] !== undefined && !isSchema(schema[keyword])) return `${at(keyword)} must be a schema`;
  }
  const items: unknown = schema.items;
  const itemsList = Array.isArray(items) && draft !== "2020-12" && items.every(isSchema);
  if (items !== undefined && !isSchema(items) && !itemsList) {
    return `${at("items")} must be a schema${draft === "2020-12" ? " (a list of schemas is 'prefixItems' in 2020-12)" : ""}`;
  }
  for (const keyword of MAPS) {
    const value: unknown = schema[keyword];
    if (value === undefined) continue;
    if (!isPlainObject(value) || !Object.values(value).every(isSchema))
      return `${at(keyword)} must map names to schemas`;
  }
  if (isPlainObject(schema.patternProperties)) {
    for (const pattern of Object.keys(schema.patternProperties)) {
      const problem = patternProblem(pattern);
      if (problem === INVALID)
        return `${at("patternProperties")} has an invalid regular expression ${JSON.stringify(pattern)}`;
      if (problem !== null) return `${at("patternProperties")} key ${problem}`;
    }
  }
  const dependent: unknown = schema.dependentRequired;
  if (dependent !== undefined && !(isPlainObject(dependent) && Object.values(dependent).every(isStringList))) {
    return `${at("dependentRequired")} must map names to lists of names`;
  }
  return null;
}

function isSchema(value: unknown): boolean {
  return typeof value === "boolean" || isPlainObject(value);
}

function isTypeList(type: unknown): boolean {
  if (typeof type === "string") return TYPES.has(type);
  return Array.isArray(type) && type.length > 0 && type.every((item) => typeof item === "string" && TYPES.has(item));
}

function isStringList(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

const INVALID = "must be a valid regular expression";

/** Why `pattern` cannot be enforced (it must be a valid regular expression; its check must not take exponential time), or null. */
function patternProblem(pattern: unknown): string | null {
  if (typeof pattern !== "string") return INVALID;
  try {
    // The validator compiles patterns with the `u` flag; one it cannot compile would throw mid-run.
    new RegExp(pattern, "u");
  } catch {
    return INVALID;
  }
  let risk: string | null;
  try {
    risk = patternRisk(pattern);
  } catch {
    return `${shortJson(pattern)} nests its groups too deeply to be checked for backtracking`;
  }
  // A backtracking check cannot be interrupted: it would hold the event loop (every run in the process) for as long as it takes.
  return risk === null
    ? null
    : `${shortJson(pattern)} can take exponential time to check: ${JSON.stringify(risk)} repeats a part that can match the same text in more than one way; start or end each round with a character nothing varying inside it matches, or repeat only once`;
}

/** Calls `visit` on every object subschema, the root first, with its dotted location. */
export function eachSchema(schema: unknown, location: string, visit: (schema: Schema, location: string) => void): void {
  if (!isPlainObject(schema)) return;
  visit(schema as Schema, location);
  const at = (key: string) => (location === "" ? key : `${location}.${key}`);
  for (const [keyword, value] of Object.entries(schema)) {
    if (Array.isArray(value)) {
      if (!Object.hasOwn(schemaArrayKeyword, keyword)) continue;
      for (const [index, item] of value.entries()) eachSchema(item, at(`${keyword}.${index}`), visit);
    } else if (Object.hasOwn(schemaMapKeyword, keyword)) {
      if (!isPlainObject(value)) continue;
      for (const [key, item] of Object.entries(value)) eachSchema(item, at(`${keyword}.${key}`), visit);
    } else if (Object.hasOwn(schemaKeyword, keyword)) {
      eachSchema(value, at(keyword), visit);
    }
  }
}
