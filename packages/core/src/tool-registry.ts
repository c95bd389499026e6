import { describeThrown, ToolSchemaError } from "./errors.js";
import type { ToolCall, ToolParameters, ToolSpec } from "./types.js";
import { isPlainObject, PARAMETER_TYPES, validateArgs } from "./validate-args.js";

/** A tool's function: gets the validated arguments (a fresh copy), returns a JSON-encodable value or a promise of one. */
// biome-ignore lint/suspicious/noExplicitAny: tools destructure their own validated argument shapes.
export type ToolFunction = (args: any) => unknown;

/** How the harness may treat a tool beyond its schema. */
export interface ToolOptions {
  /**
   * Running it twice with the same arguments does no more than running it once. Only such a tool
   * is run again when a resumed run finds that the process died while it ran (default false).
   */
  readonly idempotent?: boolean;
}

interface Tool {
  readonly spec: ToolSpec;
  readonly fn: ToolFunction;
  readonly options: ToolOptions;
}

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const PROPERTY_KEYWORDS = new Set(["type", "description"]);

/**
 * Name → tool. The registry is both the list of tools shown to the model and the allow-list:
 * a name that is not registered cannot run, whatever the model writes.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  /** Adds a tool; throws `ToolSchemaError` now, not mid-run, for a bad name, a duplicate, or a schema the validator cannot enforce. */
  register(
    name: string,
    description: string,
    parameters: ToolParameters,
    fn: ToolFunction,
    options: ToolOptions = {},
  ): void {
    if (!NAME_PATTERN.test(name)) {
      throw new ToolSchemaError(`tool name '${name}' must be 1-64 letters, digits, '_' or '-'`);
    }
    if (this.#tools.has(name)) throw new ToolSchemaError(`tool '${name}' is already registered`);
    checkSchema(name, parameters);
    this.#tools.set(name, { spec: { name, description, parameters }, fn, options: { ...options } });
  }

  /** Whether `name` is registered as idempotent; false for unknown names. */
  isIdempotent(name: string): boolean {
    return this.#tools.get(name)?.options.idempotent === true;
  }

  /** What the model is shown, in registration order: name, description and schema, never the function. */
  specs(): ToolSpec[] {
    return Array.from(this.#tools.values(), (tool) => tool.spec);
  }

  /**
   * Runs one call and returns its observation: the result as JSON, or a string starting `ERROR:`
   * that says what was wrong and what a valid call looks like. Checks, in order, that the name is
   * registered, that the arguments pass the schema, and that the function returns without
   * throwing; nothing runs for an invalid call. Never rejects.
   */
  async execute(name: string, args: unknown): Promise<string> {
    try {
      return await this.#execute(name, args);
    } catch (error) {
      // Only hostile arguments (a throwing getter or Proxy) get here: the function itself is guarded.
      return `ERROR: ${name} could not be run: ${describeThrown(error)}`;
    }
  }

  /** Like `execute`, for a call as the model sent it: arguments that arrived as text that is not a JSON object (`rawArgs`) are refused with the parse problem. */
  async executeCall(call: ToolCall): Promise<string> {
    if (call.rawArgs === undefined) return this.execute(call.name, call.args);
    const parsed = parseArgs(call.rawArgs);
    if (typeof parsed !== "string") return this.execute(call.name, parsed);
    const tool = this.#tools.get(call.name);
    if (tool === undefined) return this.#unknownTool(call.name);
    return `ERROR: the arguments of '${call.name}' are not a valid JSON object (${parsed}). Send one JSON object. ${expects(tool.spec)}`;
  }

  async #execute(name: string, args: unknown): Promise<string> {
    const tool = this.#tools.get(name);
    if (tool === undefined) return this.#unknownTool(name);
    const problem = validateArgs(args, tool.spec.parameters);
    if (problem !== null) return `ERROR: ${problem}. ${expects(tool.spec)}`;
    let result: unknown;
    try {
      result = await tool.fn({ ...(args as Record<string, unknown>) });
    } catch (error) {
      return `ERROR: ${name} failed: ${describeThrown(error)}`;
    }
    return encodeResult(name, result);
  }

  #unknownTool(name: string): string {
    const names = [...this.#tools.keys()].sort().map((known) => `'${known}'`);
    return `ERROR: unknown tool '${name}'. Available tools: [${names.join(", ")}]`;
  }
}

function expects(spec: ToolSpec): string {
  return `${spec.name} expects ${JSON.stringify(spec.parameters.properties ?? {})}`;
}

function encodeResult(name: string, result: unknown): string {
  try {
    return JSON.stringify(result) ?? "null";
  } catch (error) {
    return `ERROR: ${name} returned a value that cannot be sent as JSON: ${describeThrown(error)}`;
  }
}

/** The arguments object that `raw` encodes, or the reason it encodes none. */
function parseArgs(raw: string): Record<string, unknown> | string {
  try {
    const parsed: unknown = JSON.parse(raw);
    return isPlainObject(parsed) ? parsed : `it is JSON, but not an object`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function checkSchema(name: string, parameters: ToolParameters): void {
  if (!isPlainObject(parameters) || parameters.type !== "object") {
    throw new ToolSchemaError(`${name}: parameters must be a schema of type 'object'`);
  }
  const properties = parameters.properties ?? {};
  if (!isPlainObject(properties)) throw new ToolSchemaError(`${name}: 'properties' must be an object`);
  for (const [arg, property] of Object.entries(properties)) {
    if (!isPlainObject(property)) throw new ToolSchemaError(`${name}.${arg}: a property schema must be an object`);
    if (!PARAMETER_TYPES.includes(property.type)) {
      throw new ToolSchemaError(
        `${name}.${arg}: unsupported type '${String(property.type)}' (supported: ${PARAMETER_TYPES.join(", ")})`,
      );
    }
    const extra = Object.keys(property).find((keyword) => !PROPERTY_KEYWORDS.has(keyword));
    if (extra !== undefined) {
      throw new ToolSchemaError(`${name}.${arg}: unsupported keyword '${extra}' (supported: type, description)`);
    }
  }
  const required: unknown = parameters.required ?? [];
  if (!Array.isArray(required)) throw new ToolSchemaError(`${name}: 'required' must be an array of names`);
  for (const key of required) {
    if (typeof key !== "string" || !Object.hasOwn(properties, key)) {
      throw new ToolSchemaError(`${name}: required argument '${String(key)}' is not in 'properties'`);
    }
  }
}
