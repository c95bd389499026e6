import { type Schema, schemaArrayKeyword, schemaKeyword, schemaMapKeyword } from "@cfworker/json-schema";
import { isPlainObject } from "../../data/index.js";
import { eachSchema } from "./json-schema-structure.js";
import type { SchemaLookup } from "./schema-sentence.js";

/** Keywords whose schemas apply to the same value as the schema holding them (not to a part of it). */
const IN_PLACE_LISTS = ["allOf", "anyOf", "oneOf"];
const IN_PLACE_SINGLE = ["not", "if", "then", "else"];
const IN_PLACE_MAPS = ["dependentSchemas", "dependencies"];
/** Keywords that only hold schemas for `$ref` to name: nothing in them applies unless referred to. */
const DEFINITIONS = new Set(["$defs", "definitions"]);

/**
 * The loop of schemas, as dotted locations, that a validator would follow forever: a `$ref` (or
 * `allOf`, `anyOf`...) that comes back to a schema it started from while applying to the same
 * value, as `{ "$ref": "#" }` at the root or `a → b → a` with nothing between. A recursion that
 * goes into a part of the value first (a tree: `children.items.$ref`) ends with the value and is
 * not a loop. Null when there is none among the schemas the root can reach.
 */
export function refLoopOf(root: Schema, lookup: SchemaLookup): string[] | null {
  const locations = new Map<Schema, string>();
  eachSchema(root, "", (schema, location) => locations.set(schema, location || "(root)"));
  const state = new Map<Schema, "open" | "done">();
  const path: Schema[] = [];
  const visit = (schema: Schema): Schema[] | null => {
    if (state.get(schema) === "done") return null;
    if (state.get(schema) === "open") return [...path.slice(path.indexOf(schema)), schema];
    state.set(schema, "open");
    path.push(schema);
    for (const next of inPlace(schema, lookup)) {
      const loop = visit(next);
      if (loop !== null) return loop;
    }
    path.pop();
    state.set(schema, "done");
    return null;
  };
  for (const schema of reachable(root, lookup)) {
    const loop = visit(schema);
    if (loop !== null) return loop.map((each) => locations.get(each) ?? "(a referred schema)");
  }
  return null;
}

/** The schemas that apply to the very value `schema` applies to. */
function inPlace(schema: Schema, lookup: SchemaLookup): Schema[] {
  const next: unknown[] = [];
  if (typeof schema.$ref === "string") next.push(lookup[String(schema.__absolute_ref__ ?? schema.$ref)]);
  if (typeof schema.$recursiveRef === "string") next.push(lookup[String(schema.__absolute_recursive_ref__)]);
  for (const keyword of IN_PLACE_LISTS) if (Array.isArray(schema[keyword])) next.push(...schema[keyword]);
  for (const keyword of IN_PLACE_SINGLE) next.push(schema[keyword]);
  for (const keyword of IN_PLACE_MAPS) if (isPlainObject(schema[keyword])) next.push(...Object.values(schema[keyword]));
  return next.filter((each): each is Schema => isPlainObject(each));
}

/** Every object schema the root applies, to the value or to its parts, following `$ref` into definitions. */
function reachable(root: Schema, lookup: SchemaLookup): Set<Schema> {
  const found = new Set<Schema>();
  const add = (value: unknown): void => {
    if (!isPlainObject(value) || found.has(value as Schema)) return;
    const schema = value as Schema;
    found.add(schema);
    for (const next of inPlace(schema, lookup)) add(next);
    for (const [keyword, child] of Object.entries(schema)) {
      if (DEFINITIONS.has(keyword)) continue;
      if (Array.isArray(child)) {
        if (Object.hasOwn(schemaArrayKeyword, keyword)) for (const item of child) add(item);
      } else if (Object.hasOwn(schemaMapKeyword, keyword)) {
        if (isPlainObject(child)) for (const item of Object.values(child)) add(item);
      } else if (Object.hasOwn(schemaKeyword, keyword)) {
        add(child);
      }
    }
  };
  add(root);
  return found;
}
