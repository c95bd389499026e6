import type { SchemaDraft } from "@cfworker/json-schema";
import type { ToolParameters } from "../../data/index.js";
import {
  argumentNamed,
  copyJson,
  deepFreeze,
  firstNonJson,
  formatPath,
  isPlainObject,
  ToolSchemaError,
} from "../../data/index.js";
import { type CompiledJsonSchema, compileJsonSchema, draftOf } from "./json-schema.js";
import { type JsonSchemaParameters, markedJsonSchema } from "./json-schema-parameters.js";
import { hasStandardProps, type StandardSchemaV1, type StandardToolSchema } from "./standard-schema.js";
import { checkSubset, isSubsetShaped, validateSubset } from "./validate-subset.js";

/**
 * What a tool's `parameters` may be: (a) the spec's subset (an object of scalar properties, in
 * only the spec's keywords); (b) a JSON Schema with an object root, of the draft `$schema` names
 * or `jsonSchema()` marks, else draft 2020-12; (c) a Standard Schema (zod 4, valibot, arktype...)
 * that also exposes `~standard.jsonSchema`.
 */
export type ToolSchema = ToolParameters | JsonSchemaParameters<unknown> | StandardToolSchema;

/** The outcome of checking arguments: the arguments the function gets, or the sentence that refuses them. */
export type Checked =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly problem: string };

/** Parameters ready for calls: the JSON Schema the model is shown and the check every call passes first. */
export interface CompiledParameters {
  readonly schema: ToolParameters;
  readonly check: (args: unknown) => Checked | Promise<Checked>;
  /** Set for the spec's subset, whose check the registry runs directly: it is the hot path. */
  readonly subset?: ToolParameters;
}

const NOT_AN_OBJECT: Checked = { ok: false, problem: "arguments must be a JSON object" };

/** Compiles `parameters` of tool `name`; throws `ToolSchemaError` for parameters that cannot be enforced. */
export function compileParameters(name: string, parameters: unknown): CompiledParameters {
  if (hasStandardProps(parameters)) return compileStandard(name, parameters);
  const marked = markedJsonSchema(parameters);
  const declared = marked === undefined ? parameters : marked.schema;
  if (isPlainObject(declared) && declared.$schema !== undefined) {
    const draft = draftOf(declared.$schema);
    if (draft === undefined) {
      throw new ToolSchemaError(
        `${name}: '$schema' ${JSON.stringify(declared.$schema)} names no draft the validator knows (2020-12, 2019-09, 7, 4)`,
      );
    }
    return compileJson(name, declared, draft);
  }
  if (marked !== undefined) return compileJson(name, marked.schema, marked.draft);
  if (!isSubsetShaped(parameters)) return compileJson(name, parameters, "2020-12");
  checkSubset(name, parameters);
  const schema = frozenCopy(parameters as ToolParameters);
  return {
    schema,
    subset: schema,
    check(args) {
      const problem = validateSubset(args, schema);
      return problem === null ? { ok: true, args: { ...(args as Record<string, unknown>) } } : { ok: false, problem };
    },
  };
}

function compileJson(name: string, parameters: unknown, draft: SchemaDraft): CompiledParameters {
  const compiled = compileJsonSchema(name, parameters, draft);
  return checkingCopies(parameters, (args) => {
    const problem = compiled.check(args);
    return problem === null ? { ok: true, args } : { ok: false, problem };
  });
}

function compileStandard(name: string, parameters: { readonly "~standard": unknown }): CompiledParameters {
  const props = parameters["~standard"] as Partial<StandardToolSchema["~standard"]> | undefined;
  if (typeof props?.validate !== "function") {
    throw new ToolSchemaError(`${name}: parameters have '~standard' but no 'validate': not a Standard Schema`);
  }
  if (typeof props.jsonSchema?.input !== "function") {
    throw new ToolSchemaError(
      `${name}: the ${String(props.vendor)} schema cannot describe itself as JSON Schema ('~standard.jsonSchema'), ` +
        "which the model needs (for valibot, wrap it in toStandardJsonSchema from @valibot/to-json-schema)",
    );
  }
  let converted: unknown;
  try {
    converted = props.jsonSchema.input({ target: "draft-2020-12" });
  } catch (error) {
    throw new ToolSchemaError(`${name}: the schema cannot be shown to the model as JSON Schema`, { cause: error });
  }
  // Libraries may leave keys set to undefined; JSON (and the log) drops them.
  const shown = firstNonJson(converted) === null ? converted : dropUndefined(converted);
  const draft = (isPlainObject(shown) && draftOf(shown.$schema)) || "2020-12";
  const compiled = compileJsonSchema(name, shown, draft);
  const validate = props.validate.bind(props);
  return checkingCopies(shown, (args) => {
    const unexpected = compiled.unexpected(args);
    if (unexpected !== null) return { ok: false, problem: unexpected };
    const result = validate(args);
    return isThenable(result)
      ? Promise.resolve(result).then((settled) => fromStandard(settled, args, compiled))
      : fromStandard(result, args, compiled);
  });
}

/** Parameters shown as `schema` (a frozen copy), whose check runs `check` on a copy of arguments that are a JSON object. */
function checkingCopies(
  schema: unknown,
  check: (args: Record<string, unknown>) => Checked | Promise<Checked>,
): CompiledParameters {
  return {
    schema: frozenCopy(schema as ToolParameters),
    check(args) {
      const copied = copyArgs(args);
      return copied.ok ? check(copied.args) : copied;
    },
  };
}

function fromStandard(
  result: StandardSchemaV1.Result<unknown>,
  args: Record<string, unknown>,
  compiled: CompiledJsonSchema,
): Checked {
  if (result.issues === undefined) {
    return isPlainObject(result.value)
      ? { ok: true, args: result.value }
      : { ok: false, problem: "the schema turned the arguments into something that is not an object" };
  }
  // The JSON Schema finds most problems and says them as every other tool does; what only the
  // library knows (a refinement) is told with the library's message.
  const problem = compiled.check(args);
  if (problem !== null) return { ok: false, problem };
  const [issue] = result.issues;
  const path = (issue?.path ?? []).map((segment) => {
    const key = typeof segment === "object" ? segment.key : segment;
    return typeof key === "number" ? key : String(key);
  });
  return {
    ok: false,
    problem: `${argumentNamed(formatPath(path))} is invalid: ${issue?.message ?? "no reason given"}`,
  };
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown }).then === "function";
}

function copyArgs(args: unknown): Checked {
  if (!isPlainObject(args)) return NOT_AN_OBJECT;
  const copied = copyJson(args);
  return copied.ok ? { ok: true, args: copied.value as Record<string, unknown> } : copied;
}

function dropUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropUndefined);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => [key, dropUndefined(item)]),
  );
}

/** A deep, frozen copy of JSON data: what `specs()` shows cannot change after registration. */
function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}
