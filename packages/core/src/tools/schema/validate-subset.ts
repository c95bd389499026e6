import type { ParameterType, ToolParameters } from "../../data/index.js";
import { firstNonJson, isPlainObject, ToolSchemaError } from "../../data/index.js";

const TYPE_CHECKS: Readonly<Record<ParameterType, (value: unknown) => boolean>> = {
  string: (value) => typeof value === "string",
  integer: (value) => Number.isInteger(value),
  number: (value) => typeof value === "number" && Number.isFinite(value),
  boolean: (value) => typeof value === "boolean",
};

/** The parameter types of the spec's subset; `register` refuses any other in a schema without `$schema`. */
export const PARAMETER_TYPES: readonly ParameterType[] = Object.keys(TYPE_CHECKS) as ParameterType[];
const ROOT_KEYWORDS = new Set(["type", "properties", "required"]);
const PROPERTY_KEYWORDS = new Set(["type", "description"]);
const FULL_SCHEMA_HINT =
  "a property of only 'type' and 'description' is the spec's subset; for JSON Schema, use its keywords (such as 'items'), " +
  'declare "$schema": "https://json-schema.org/draft/2020-12/schema" or wrap it in jsonSchema()';

/**
 * Whether a schema without `$schema` speaks only the spec's vocabulary (`type`, `properties` and
 * `required` at the root; `type` as one name and `description` in each property): such a schema is
 * the spec's subset, checked with the spec's sentences. Any other is JSON Schema draft 2020-12.
 */
export function isSubsetShaped(parameters: unknown): boolean {
  if (!isPlainObject(parameters) || !Object.keys(parameters).every((keyword) => ROOT_KEYWORDS.has(keyword))) {
    return false;
  }
  const properties = parameters.properties ?? {};
  return (
    isPlainObject(properties) &&
    Object.values(properties).every(
      (property) =>
        isPlainObject(property) &&
        (property.type === undefined || typeof property.type === "string") &&
        Object.keys(property).every((keyword) => PROPERTY_KEYWORDS.has(keyword)),
    )
  );
}

/**
 * Checks arguments against a schema of the spec's subset: `null` when valid, or the spec's
 * sentence: not a JSON object, a required argument missing, an argument not in the schema, or a
 * value of the wrong type. Only own keys count, so `__proto__` or `constructor` in the arguments
 * are unexpected arguments, never inherited schema entries.
 */
export function validateSubset(args: unknown, schema: ToolParameters): string | null {
  if (!isPlainObject(args)) return "arguments must be a JSON object";
  const properties = schema.properties ?? {};
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(args, key)) return `missing required argument '${key}'`;
  }
  for (const key of Object.keys(args)) {
    const property = Object.hasOwn(properties, key) ? (properties[key] as { type: ParameterType }) : undefined;
    if (property === undefined) return `unexpected argument '${key}'`;
    if (!TYPE_CHECKS[property.type](args[key])) return `argument '${key}' must be of type ${property.type}`;
  }
  return null;
}

/** Throws `ToolSchemaError` unless `parameters`, shaped as the spec's subset, is one `validateSubset` can enforce. */
export function checkSubset(name: string, parameters: unknown): void {
  if (!isPlainObject(parameters) || parameters.type !== "object") {
    throw new ToolSchemaError(`${name}: parameters must be a schema of type 'object'`);
  }
  const nonJson = firstNonJson(parameters);
  if (nonJson !== null) throw new ToolSchemaError(`${name}: parameters must be JSON data; '${nonJson}' is not`);
  const properties = parameters.properties ?? {};
  if (!isPlainObject(properties)) throw new ToolSchemaError(`${name}: 'properties' must be an object`);
  for (const [arg, property] of Object.entries(properties)) {
    if (!isPlainObject(property)) throw new ToolSchemaError(`${name}.${arg}: a property schema must be an object`);
    if (!PARAMETER_TYPES.includes(property.type as ParameterType)) {
      throw new ToolSchemaError(
        `${name}.${arg}: unsupported type '${String(property.type)}' (supported: ${PARAMETER_TYPES.join(", ")}); ${FULL_SCHEMA_HINT}`,
      );
    }
  }
  const required: unknown = parameters.required ?? [];
  if (!Array.isArray(required)) throw new ToolSchemaError(`${name}: 'required' must be an array of names`);
  for (const key of required) {
    if (typeof key !== "string" || !Object.hasOwn(properties, key)) {
      throw new ToolSchemaError(`${name}: required argument '${String(key)}' is not in 'properties'`);
    }
  }
}
