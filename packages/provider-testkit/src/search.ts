import type { ToolParameters } from "@agentloop/core";

/**
 * The search tool's parameters both adapters' schema tests send: a JSON Schema with nested
 * objects, arrays, an enum, anyOf and a `$ref` into `$defs`.
 */
export const SEARCH_PARAMETERS: ToolParameters = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    filters: { type: "array", items: { $ref: "#/$defs/filter" }, minItems: 1 },
    limit: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }] },
  },
  required: ["filters"],
  $defs: {
    filter: {
      type: "object",
      properties: { field: { type: "string" }, op: { enum: ["eq", "lt"] }, value: { type: "string" } },
      required: ["field", "op", "value"],
      additionalProperties: false,
    },
  },
};
