import { type ToolParameters, type ToolSchema, validateArgs } from "@agentloop/core";
import { deepEqual } from "./deep-equal.js";
import type { Scorer } from "./types.js";

/**
 * Scores the run's typed output (`result.output`, else its answer read as JSON): with a JSON
 * Schema, 1 when the value matches it and, if the case has an `expected`, equals it; without one,
 * 1 when the value equals `expected`. An answer that is not JSON scores 0. Throws for a case
 * with neither schema nor `expected`, or a schema that is not a JSON Schema.
 */
export function outputMatches(schema?: ToolSchema, options: { readonly name?: string } = {}): Scorer {
  if (schema !== undefined && !isJsonSchema(schema)) {
    throw new TypeError(
      "outputMatches takes a JSON Schema (an object); check a Standard Schema in a scorer of your own",
    );
  }
  return {
    name: options.name ?? "outputMatches",
    score({ case: c, result }) {
      if (schema === undefined && c.expected === undefined) {
        throw new TypeError(`case '${c.id}' has no expected output, and outputMatches was given no schema`);
      }
      const value = result.output !== undefined ? result.output : parsed(result.answer);
      if (value === undefined) return 0;
      if (schema !== undefined && validateArgs(value, schema) !== null) return 0;
      return c.expected === undefined || deepEqual(value, c.expected) ? 1 : 0;
    },
  };
}

function isJsonSchema(schema: ToolSchema): schema is ToolParameters {
  return typeof schema === "object" && schema !== null && !("~standard" in schema);
}

function parsed(answer: string | null): unknown {
  if (answer === null) return undefined;
  try {
    return JSON.parse(answer) as unknown;
  } catch {
    return undefined;
  }
}
