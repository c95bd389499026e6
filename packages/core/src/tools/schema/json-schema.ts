import { dereference, type Schema, type SchemaDraft, validate } from "@cfworker/json-schema";
import { firstNonJson, isPlainObject, ToolSchemaError } from "../../data/index.js";
import { refLoopOf } from "./json-schema-cycles.js";
import { checkStructure, eachSchema } from "./json-schema-structure.js";
import { type SchemaLookup, sentenceOf } from "./schema-sentence.js";

/** The drafts `$schema` may name, without scheme and trailing `#`. */
const DRAFTS: Readonly<Record<string, SchemaDraft>> = {
  "json-schema.org/draft/2020-12/schema": "2020-12",
  "json-schema.org/draft/2019-09/schema": "2019-09",
  "json-schema.org/draft-07/schema": "7",
  "json-schema.org/draft-04/schema": "4",
};

/** The draft a `$schema` URI names (2020-12, 2019-09, 7 or 4), or undefined for any other value. */
export function draftOf(uri: unknown): SchemaDraft | undefined {
  if (typeof uri !== "string") return undefined;
  const key = uri.replace(/^https?:\/\//, "").replace(/#$/, "");
  return Object.hasOwn(DRAFTS, key) ? DRAFTS[key] : undefined;
}

/** A JSON Schema ready to check arguments: `check` returns null for valid arguments, else one sentence. */
export interface CompiledJsonSchema {
  readonly check: (args: Record<string, unknown>) => string | null;
  /** The sentence for the first top-level key the schema does not declare, or null. */
  readonly unexpected: (args: Record<string, unknown>) => string | null;
}

/**
 * Compiles an object schema of `draft` for `@cfworker/json-schema`, refusing with `ToolSchemaError`
 * what it could not enforce: data that is not JSON, a root that is not `type: "object"`, a bad
 * keyword value, a `$ref` that resolves nowhere, a `$ref` loop that never goes into the value (a
 * recursion through `properties` or `items`, a tree, is fine), a required key no property declares. The schema
 * given is never changed (the validator annotates a copy). Top-level keys that no `properties`
 * declares are refused unless the root allows them (`additionalProperties`, `patternProperties`,
 * `unevaluatedProperties`).
 */
export function compileJsonSchema(tool: string, schema: unknown, draft: SchemaDraft): CompiledJsonSchema {
  const fail = (problem: string): never => {
    throw new ToolSchemaError(`${tool}: ${problem}`);
  };
  const nonJson = firstNonJson(schema);
  if (nonJson !== null) fail(`parameters must be JSON data; '${nonJson}' is not`);
  if (!isPlainObject(schema) || schema.type !== "object") fail("parameters must be a schema of type 'object'");
  const root = structuredClone(schema) as Schema;
  checkStructure(root, draft, fail);
  let lookup: SchemaLookup;
  try {
    lookup = dereference(root);
  } catch (error) {
    return fail(`parameters cannot be resolved: ${error instanceof Error ? error.message : String(error)}`);
  }
  eachSchema(root, "", (sub, location) => {
    if (typeof sub.$ref === "string" && lookup[String(sub.__absolute_ref__ ?? sub.$ref)] === undefined) {
      fail(`'$ref' ${JSON.stringify(sub.$ref)} at '${location || "(root)"}' resolves to no schema in the parameters`);
    }
  });
  const loop = refLoopOf(root, lookup);
  if (loop !== null) {
    fail(
      `parameters refer to themselves in a loop that never goes into the arguments (${loop.map((at) => `'${at}'`).join(" → ")}), so no call could be checked`,
    );
  }
  const known = topLevelKeys(root, lookup);
  const required: unknown = root.required;
  if (known !== null && Array.isArray(required)) {
    const missing = required.find((key) => typeof key === "string" && !known.has(key));
    if (missing !== undefined) fail(`required argument '${String(missing)}' is not in 'properties'`);
  }
  const unexpected = (args: Record<string, unknown>): string | null => {
    const key = known === null ? undefined : Object.keys(args).find((name) => !known.has(name));
    return key === undefined ? null : `unexpected argument '${key}'`;
  };
  return {
    check(args) {
      const result = validate(args, root, draft, lookup, true);
      return result.valid ? unexpected(args) : sentenceOf(result.errors, { root, lookup, args });
    },
    unexpected,
  };
}

/**
 * The top-level keys the root declares (its `properties`, and those of the schemas it combines
 * with `allOf`, `anyOf`, `oneOf`, `if`/`then`/`else` or `$ref`), or null when it allows others.
 */
function topLevelKeys(root: Schema, lookup: SchemaLookup): Set<string> | null {
  const open = ["additionalProperties", "patternProperties", "unevaluatedProperties"];
  if (open.some((keyword) => root[keyword] !== undefined)) return null;
  const keys = new Set<string>();
  const seen = new Set<Schema>();
  const collect = (schema: Schema | boolean): void => {
    if (typeof schema !== "object" || seen.has(schema)) return;
    seen.add(schema);
    if (isPlainObject(schema.properties)) for (const key of Object.keys(schema.properties)) keys.add(key);
    if (typeof schema.$ref === "string") collect(lookup[String(schema.__absolute_ref__)] ?? false);
    for (const keyword of ["allOf", "anyOf", "oneOf"]) {
      const branches: unknown = schema[keyword];
      if (Array.isArray(branches)) for (const branch of branches) collect(branch as Schema);
    }
    for (const keyword of ["if", "then", "else"]) if (schema[keyword] !== undefined) collect(schema[keyword]);
  };
  collect(root);
  return keys;
}
