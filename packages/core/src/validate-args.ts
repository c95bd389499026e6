import type { ParameterType, ToolParameters } from "./types.js";

const TYPE_CHECKS: Readonly<Record<ParameterType, (value: unknown) => boolean>> = {
  string: (value) => typeof value === "string",
  integer: (value) => Number.isInteger(value),
  number: (value) => typeof value === "number" && Number.isFinite(value),
  boolean: (value) => typeof value === "boolean",
};

/** The parameter types the validator knows; `register` refuses any other. */
export const PARAMETER_TYPES: readonly ParameterType[] = Object.keys(TYPE_CHECKS) as ParameterType[];

/** True for `{...}` made by a literal or `JSON.parse`, false for null, arrays, strings, class instances. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks arguments against a tool's schema and returns `null` when they are valid, or one sentence
 * the model can act on: not a JSON object, a required argument missing, an argument not in the
 * schema, or a value of the wrong type. Only own keys count, so `__proto__` or `constructor` in
 * the arguments are unexpected arguments, never inherited schema entries.
 */
export function validateArgs(args: unknown, schema: ToolParameters): string | null {
  if (!isPlainObject(args)) return "arguments must be a JSON object";
  const properties = schema.properties ?? {};
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(args, key)) return `missing required argument '${key}'`;
  }
  for (const key of Object.keys(args)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property === undefined) return `unexpected argument '${key}'`;
    if (!TYPE_CHECKS[property.type](args[key])) return `argument '${key}' must be of type ${property.type}`;
  }
  return null;
}
