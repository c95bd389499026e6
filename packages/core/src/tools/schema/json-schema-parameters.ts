import type { SchemaDraft } from "@cfworker/json-schema";
import type { ToolParameters } from "../../data/index.js";
import { isPlainObject } from "../../data/index.js";
import type { InferJsonSchema } from "./infer-args.js";

const BRAND = Symbol.for("agentloop.jsonSchema");

/** A JSON Schema marked as such without a `$schema` keyword, as `jsonSchema(schema)` makes it; `Args` is the type it describes. */
export interface JsonSchemaParameters<Args = Record<string, unknown>> {
  readonly [BRAND]: { readonly schema: ToolParameters; readonly draft: SchemaDraft };
  /** Never set: carries the argument type for inference. */
  readonly "~args"?: Args;
}

/**
 * Marks `schema` as full JSON Schema of `draft` (default 2020-12) for a schema that does not say
 * so with `$schema` (an MCP server's, a generated one): without the mark, a schema with no
 * `$schema` is draft 2020-12 too, except one in only the spec's keywords, which is the spec's
 * subset with the spec's sentences. `specs()` shows `schema` unchanged.
 */
export function jsonSchema<const S extends ToolParameters>(
  schema: S,
  options: { readonly draft?: "2020-12" | "2019-09" | "7" | "4" } = {},
): JsonSchemaParameters<InferJsonSchema<S>> {
  return Object.freeze({ [BRAND]: Object.freeze({ schema, draft: options.draft ?? "2020-12" }) });
}

/** The schema and draft `jsonSchema()` marked, or undefined for anything else. */
export function markedJsonSchema(
  value: unknown,
): { readonly schema: unknown; readonly draft: SchemaDraft } | undefined {
  if (!isPlainObject(value)) return undefined;
  const mark = (value as Partial<JsonSchemaParameters>)[BRAND];
  return mark === undefined ? undefined : mark;
}
