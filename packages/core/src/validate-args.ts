import { type CompiledParameters, compileParameters } from "./parameters.js";
import type { ToolParameters } from "./types.js";
import { validateSubset } from "./validate-subset.js";

export { isPlainObject } from "./is-plain-object.js";
export { PARAMETER_TYPES } from "./validate-subset.js";

const compiled = new WeakMap<ToolParameters, CompiledParameters>();

/**
 * Checks arguments against a tool's schema and returns `null` when they are valid, or one sentence
 * the model can act on. A schema without `$schema` is the spec's subset, with the spec's sentences:
 * not a JSON object, a required argument missing, an argument not in the schema, or a value of the
 * wrong type. A schema with `$schema` is full JSON Schema (compiled once per schema object; throws
 * `ToolSchemaError` when it cannot be enforced), and the sentence names the argument by its path.
 */
export function validateArgs(args: unknown, schema: ToolParameters): string | null {
  if (schema.$schema === undefined) return validateSubset(args, schema);
  let parameters = compiled.get(schema);
  if (parameters === undefined) {
    parameters = compileParameters("parameters", schema);
    compiled.set(schema, parameters);
  }
  // A JSON Schema's check never waits: only a Standard Schema's may.
  const checked = parameters.check(args) as Exclude<ReturnType<CompiledParameters["check"]>, Promise<unknown>>;
  return checked.ok ? null : checked.problem;
}
