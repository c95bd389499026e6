import { isPlainObject, type MemoryScope, ToolSchemaError } from "../data/index.js";
import type { ArgsOf } from "./schema/index.js";
import { type CompiledParameters, compileParameters, type ToolSchema } from "./schema/index.js";
import type { ToolFunction } from "./tool-function.js";
import { checkOptions, TOOL_OPTION_KEYS, type ToolOptions } from "./tool-options.js";

export type { ToolAsk, ToolContext, ToolFunction, ToolNote } from "./tool-function.js";

/** The key of a tool's performer: a symbol, so that it is never one of the definition's keys a user writes or JSON shows. */
export const PERFORMER: unique symbol = Symbol("agentloop.performer");

/**
 * How a run performs a tool's calls when not by calling its function, kept with the tool (and by
 * the registry with its entry): `agent`, a child run (`child` is the run part's description of it,
 * set by `agentTool`); `ask-user`, a person's answer of the `answer` shape (set by `askUserTool`);
 * `handoff`, the conversation given to another agent (`target`, set by `handoff`); `memory-write`, its
 * function, and a call that succeeds is logged as a write of its `key` and `value` to `scope` (null:
 * the run's memory scope); `memory-read`, its function, searching `scope` (null: the run's) (both set
 * by `memoryTools`). Internal: a plain tool (`tool()`, `register`, MCP) has none.
 */
export type ToolPerformer =
  | { readonly kind: "agent"; readonly child: object }
  | { readonly kind: "ask-user"; readonly answer?: CompiledParameters }
  | { readonly kind: "handoff"; readonly target: object }
  | { readonly kind: "memory-write"; readonly scope: MemoryScope | null }
  | { readonly kind: "memory-read"; readonly scope: MemoryScope | null };

/** Everything that makes a tool: what the model is shown, the function, and how the harness treats it. */
export interface ToolDefinition<P extends ToolSchema = ToolSchema> extends ToolOptions {
  /** 1-64 letters, digits, `_` or `-`. */
  readonly name: string;
  readonly description: string;
  readonly parameters: P;
  readonly execute: ToolFunction<ArgsOf<P>>;
  /** How a run performs its calls when not by `execute` (internal; absent: a plain tool). */
  readonly [PERFORMER]?: ToolPerformer;
}

/** A tool, as `tool()` makes it and `ToolRegistry#add` takes it; `Args` is what its function gets. */
export interface Tool<Args = never> extends ToolOptions {
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolSchema;
  readonly execute: ToolFunction<Args>;
  /** How a run performs its calls when not by `execute` (internal; absent: a plain tool). */
  readonly [PERFORMER]?: ToolPerformer;
}

/** A tool checked and compiled: what the registry keeps. */
export interface CompiledTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: CompiledParameters;
  readonly execute: ToolFunction<Record<string, unknown>>;
  readonly options: ToolOptions;
  readonly performer: ToolPerformer | undefined;
}

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const DEFINITION_KEYS = ["name", "description", "parameters", "execute", ...TOOL_OPTION_KEYS];
const compiled = new WeakMap<object, CompiledTool>();

/**
 * Defines a tool; the type of `execute`'s arguments is inferred from `parameters` (a Standard
 * Schema's output, or a literal JSON Schema). Throws `ToolSchemaError` now, not mid-run, for a bad
 * name, a description that is not a string, parameters that cannot be enforced, or an option of
 * the wrong kind.
 */
export function tool<const P extends ToolSchema>(definition: ToolDefinition<P>): Tool<ArgsOf<P>> {
  const checked = compileTool(definition);
  const made = Object.freeze({ ...definition }) as unknown as Tool<ArgsOf<P>>;
  compiled.set(made, checked);
  return made;
}

/** The compiled form of a tool definition, checked as `tool()` checks it (cached for tools `tool()` made). */
export function compileTool(definition: unknown): CompiledTool {
  const cached = typeof definition === "object" && definition !== null ? compiled.get(definition) : undefined;
  if (cached !== undefined) return cached;
  if (!isPlainObject(definition)) throw new ToolSchemaError("a tool must be an object made by tool()");
  const { name, description, parameters, execute } = definition;
  const label = checkName(name);
  const unknown = Object.keys(definition).find((key) => !DEFINITION_KEYS.includes(key));
  if (unknown !== undefined) throw new ToolSchemaError(`${label}: unknown key '${unknown}' in the tool's definition`);
  if (typeof description !== "string") {
    throw new ToolSchemaError(`${label}: description must be a string; got ${typeof description}`);
  }
  if (typeof execute !== "function") throw new ToolSchemaError(`${label}: execute must be a function`);
  const options = checkOptions(label, definition, false);
  return {
    name: label,
    description,
    parameters: compileParameters(label, parameters),
    execute: execute as ToolFunction<Record<string, unknown>>,
    options,
    performer: performerOf((definition as { readonly [PERFORMER]?: unknown })[PERFORMER]),
  };
}

/** A performer only `agentTool` or `askUserTool` made can be of these shapes; anything else under the key is refused. */
function performerOf(value: unknown): ToolPerformer | undefined {
  if (value === undefined) return undefined;
  const kind = isPlainObject(value) ? value.kind : undefined;
  if (
    kind === "agent" ||
    kind === "ask-user" ||
    kind === "handoff" ||
    kind === "memory-write" ||
    kind === "memory-read"
  ) {
    return value as ToolPerformer;
  }
  throw new ToolSchemaError(
    "a tool's performer must be one agentTool(), askUserTool(), handoff() or memoryTools() made",
  );
}

function checkName(name: unknown): string {
  if (typeof name !== "string") throw new ToolSchemaError(`a tool name must be a string; got ${typeof name}`);
  if (!NAME_PATTERN.test(name)) {
    throw new ToolSchemaError(`tool name '${name}' must be 1-64 letters, digits, '_' or '-'`);
  }
  return name;
}
