import type { ToolParameters } from "../../data/index.js";
import type { InferJsonSchema } from "./infer-args.js";
import type { JsonSchemaParameters } from "./json-schema-parameters.js";
import type { StandardSchemaV1 } from "./standard-schema.js";

/**
 * The arguments a tool's function gets for `parameters`: a Standard Schema's output type, the type
 * a literal JSON Schema describes, or `never` for a schema whose shape the type system cannot see
 * (a `ToolParameters` variable), which lets the function declare its own argument type.
 */
export type ArgsOf<P> = P extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<P>
  : P extends JsonSchemaParameters<infer A>
    ? A
    : P extends ToolParameters
      ? string extends keyof NonNullable<P["properties"]>
        ? never
        : InferJsonSchema<P>
      : never;
