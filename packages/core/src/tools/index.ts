// The entry module of tools/: the other parts of core import it from here.

export * from "./cut-result.js";
export * from "./run-guarded.js";
export * from "./safe-observation.js";
export {
  type ArgsOf,
  type CompiledParameters,
  compileParameters,
  type StandardSchemaV1,
  type ToolSchema,
} from "./schema/index.js";
export * from "./tool.js";
export * from "./tool-function.js";
export * from "./tool-options.js";
export * from "./tool-registry.js";
