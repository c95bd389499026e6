// The entry module of tools/schema/: the other parts of core import it from here.

export * from "./args-of.js";
export * from "./infer-args.js";
export * from "./json-schema.js";
export * from "./json-schema-cycles.js";
export * from "./json-schema-parameters.js";
export * from "./json-schema-structure.js";
export * from "./parameters.js";
export * from "./pattern-risk.js";
export * from "./schema-sentence.js";
export * from "./standard-schema.js";
export * from "./validate-args.js";
export * from "./validate-subset.js";
