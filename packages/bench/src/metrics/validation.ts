import { type ToolCall, type ToolParameters, ToolRegistry, tool } from "@agentloop/core";
import { z } from "zod";
import { median } from "../measure.js";

/** One kind of parameters, with a valid call of it. */
interface ValidationCase {
  readonly label: string;
  readonly registry: ToolRegistry;
  readonly call: ToolCall;
}

/** Microseconds per call of one kind: checking the arguments only (`wouldRun`), and a whole `execute` of a tool that returns at once. */
export interface ValidationCost {
  readonly label: string;
  readonly checkUs: number;
  readonly executeUs: number;
}

const SUBSET: ToolParameters = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer" }, metric: { type: "boolean" } },
  required: ["city"],
};

/** The same search tool as JSON Schema and as zod: nested objects in an array, an enum, bounds, a `$ref`. */
const NESTED: ToolParameters = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    query: { type: "string", minLength: 1 },
    filters: { type: "array", items: { $ref: "#/$defs/filter" }, maxItems: 10 },
    limit: { type: "integer", minimum: 1, maximum: 100 },
  },
  required: ["query", "filters"],
  $defs: {
    filter: {
      type: "object",
      properties: { field: { type: "string" }, op: { enum: ["eq", "lt", "gt"] }, value: { type: "string" } },
      required: ["field", "op", "value"],
      additionalProperties: false,
    },
  },
};
const ZOD = z.object({
  query: z.string().min(1),
  filters: z.array(z.object({ field: z.string(), op: z.enum(["eq", "lt", "gt"]), value: z.string() })).max(10),
  limit: z.number().int().min(1).max(100).optional(),
});
const SEARCH_ARGS = {
  query: "invoices",
  filters: [
    { field: "year", op: "eq", value: "2025" },
    { field: "total", op: "gt", value: "100" },
  ],
  limit: 20,
};

function cases(): ValidationCase[] {
  const subset = new ToolRegistry();
  subset.register("weather", "Weather.", SUBSET, () => null);
  const nested = new ToolRegistry();
  nested.register("search", "Search.", NESTED, () => null);
  const zod = new ToolRegistry([
    tool({ name: "search", description: "Search.", parameters: ZOD, execute: () => null }),
  ]);
  const call = (name: string, args: Record<string, unknown>): ToolCall => ({ id: "c1", name, args });
  return [
    {
      label: "spec subset (3 scalars)",
      registry: subset,
      call: call("weather", { city: "Pune", days: 3, metric: true }),
    },
    { label: "nested JSON Schema ($ref, 2 filters)", registry: nested, call: call("search", SEARCH_ARGS) },
    { label: "zod 4, the same schema", registry: zod, call: call("search", SEARCH_ARGS) },
  ];
}

/**
 * Measures what checking arguments costs per call for each kind of parameters: the median over
 * `rounds` of the mean over `calls` calls, for `wouldRun` (validation only) and for `execute`.
 * Every call is checked to be valid and to run, so a broken validator cannot look fast.
 */
export async function measureValidation(rounds: number, calls: number): Promise<ValidationCost[]> {
  const costs: ValidationCost[] = [];
  for (const { label, registry, call } of cases()) {
    if (!registry.wouldRun(call) || (await registry.execute(call.name, call.args)) !== "null") {
      throw new Error(`validation bench: the ${label} call did not run`);
    }
    const check: number[] = [];
    const execute: number[] = [];
    for (let round = 0; round < rounds; round++) {
      let start = performance.now();
      for (let index = 0; index < calls; index++) registry.wouldRun(call);
      check.push(((performance.now() - start) * 1000) / calls);
      start = performance.now();
      for (let index = 0; index < calls; index++) await registry.execute(call.name, call.args);
      execute.push(((performance.now() - start) * 1000) / calls);
    }
    costs.push({ label, checkUs: median(check), executeUs: median(execute) });
  }
  return costs;
}
