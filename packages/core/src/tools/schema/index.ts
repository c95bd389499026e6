// The entry module of tools/schema/: what the rest of core uses from it, each name listed.

export type { ArgsOf } from "./args-of.js";
export { type JsonSchemaParameters, jsonSchema } from "./json-schema-parameters.js";
export { type Checked, type CompiledParameters, compileParameters, type ToolSchema } from "./parameters.js";
export type { StandardToolSchema } from "./standard-schema.js";
export { validateArgs } from "./validate-args.js";
export { validateSubset } from "./validate-subset.js";
