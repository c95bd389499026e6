import type { ToolParameters } from "../../data/index.js";
import { type CompiledParameters, compileParameters } from "./parameters.js";
import { isSubsetShaped, validateSubset } from "./validate-subset.js";

export { isPlainObject } from "../../data/index.js";
export { PARAMETER_TYPES } from "./validate-subset.js";

const compiled = new WeakMap<ToolParameters, CompiledParameters>();

/**
 * Checks arguments against a tool's schema and returns `null` when they are valid, or one sentence
 * the model can act on. A schema in only the spec's keywords is the spec's subset, with the spec's
 * sentences: not a JSON object, a required argument missing, an argument not in the schema, or a
 * value of the wrong type. Any other is full JSON Schema (draft 2020-12 unless `$schema` names
 * another; compiled once per schema object; throws `ToolSchemaError` when it cannot be enforced),
 * and the sentence names the argument by its path.
 */
export function validateArgs(args: unknown, schema: ToolParameters): string | null {
  let parameters = compiled.get(schema);
  if (parameters === undefined) {
    if (schema.$schema === undefined && isSubsetShaped(schema)) return validateSubset(args, schema);
    parameters = compileParameters("parameters", schema);
    compiled.set(schema, parameters);
  }
  // A JSON Schema's check never waits: only a Standard Schema's may.
  const checked = parameters.check(args) as Exclude<ReturnType<CompiledParameters["check"]>, Promise<unknown>>;
  return checked.ok ? null : checked.problem;
}
