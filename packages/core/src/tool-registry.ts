import { cutResult, isCharLimit } from "./cut-result.js";
import { describeThrown, ToolSchemaError } from "./errors.js";
import { isTimeout, MAX_TIMER_MS, type Outcome, runGuarded } from "./run-guarded.js";
import type { ToolCall, ToolParameters, ToolSpec } from "./types.js";
import { isPlainObject, PARAMETER_TYPES, validateArgs } from "./validate-args.js";

/**
 * A tool's function: gets the validated arguments (a fresh copy) and a signal that aborts on its
 * timeout or when the run is cancelled; returns a JSON-encodable value or a promise of one.
 */
// biome-ignore lint/suspicious/noExplicitAny: tools destructure their own validated argument shapes.
export type ToolFunction = (args: any, context: { readonly signal: AbortSignal }) => unknown;

/** Limits of one execution that the run sets for tools that do not set their own. */
export interface ExecuteOptions {
  /** Aborts the tool's signal: the run was cancelled. */
  readonly signal?: AbortSignal;
  /** Milliseconds the tool may take (no limit when absent). */
  readonly timeoutMs?: number;
  /** Longer observations are cut (see `cutResult`); no limit when absent. */
  readonly maxResultChars?: number;
}

/** How the harness may treat a tool beyond its schema. */
export interface ToolOptions {
  /**
   * Running it twice with the same arguments does no more than running it once. Only such a tool
   * is run again when a resumed run finds that the process died while it ran (default false).
   */
  readonly idempotent?: boolean;
  /** The tool runs only after a decision: an approver's, or one given to `resumeAgent` (default false). */
  readonly needsApproval?: boolean;
  /**
   * May be called again and again with the same arguments (paging, polling, random) without the
   * repeated-call guard refusing it (default false).
   */
  readonly repeatable?: boolean;
  /** Milliseconds it may take, overriding the run's `toolTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Its observations longer than this are cut, overriding the run's `maxResultChars`. */
  readonly maxResultChars?: number;
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
    checkOptions(name, options);
    this.#tools.set(name, { spec: { name, description, parameters }, fn, options: { ...options } });
  }

  /** Whether `execute` would call the tool's function for this call: a known name and valid arguments. */
  wouldRun(call: ToolCall): boolean {
    const tool = this.#tools.get(call.name);
    const args = call.rawArgs === undefined ? call.args : parseArgs(call.rawArgs);
    return tool !== undefined && typeof args !== "string" && validateArgs(args, tool.spec.parameters) === null;
  }

  /** Whether `name` is registered as idempotent; false for unknown names. */
  isIdempotent(name: string): boolean {
    return this.#tools.get(name)?.options.idempotent === true;
  }

  /** The names of the tools registered with `needsApproval`, in registration order. */
  approvalRequired(): string[] {
    return [...this.#tools.values()]
      .filter((tool) => tool.options.needsApproval === true)
      .map((tool) => tool.spec.name);
  }

  /** The names of the tools registered as `idempotent`, in registration order. */
  idempotentTools(): string[] {
    return [...this.#tools.values()].filter((tool) => tool.options.idempotent === true).map((tool) => tool.spec.name);
  }

  /** The names of the tools registered as `repeatable`, in registration order. */
  repeatableTools(): string[] {
    return [...this.#tools.values()].filter((tool) => tool.options.repeatable === true).map((tool) => tool.spec.name);
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
  async execute(name: string, args: unknown, options: ExecuteOptions = {}): Promise<string> {
    const limit = this.#tools.get(name)?.options.maxResultChars ?? options.maxResultChars;
    let observation: string;
    try {
      const outcome = this.#execute(name, args, options);
      observation = typeof outcome === "string" ? outcome : await outcome;
    } catch (error) {
      // Only hostile arguments (a throwing getter or Proxy) get here: the function itself is guarded.
      observation = `ERROR: ${name} could not be run: ${describeThrown(error)}`;
    }
    return limit === undefined ? observation : cutResult(observation, limit);
  }

  /** Like `execute`, for a call as the model sent it: arguments that arrived as text that is not a JSON object (`rawArgs`) are refused with the parse problem. */
  executeCall(call: ToolCall, options: ExecuteOptions = {}): Promise<string> {
    if (call.rawArgs === undefined) return this.execute(call.name, call.args, options);
    const parsed = parseArgs(call.rawArgs);
    if (typeof parsed !== "string") return this.execute(call.name, parsed, options);
    const tool = this.#tools.get(call.name);
    return Promise.resolve(
      tool === undefined
        ? this.#unknownTool(call.name)
        : `ERROR: the arguments of '${call.name}' are not a valid JSON object (${parsed}). Send one JSON object. ${expects(tool.spec)}`,
    );
  }

  /** The observation, at once when the function returns at once (most tools), else a promise of it. */
  #execute(name: string, args: unknown, options: ExecuteOptions): string | Promise<string> {
    const tool = this.#tools.get(name);
    if (tool === undefined) return this.#unknownTool(name);
    const problem = validateArgs(args, tool.spec.parameters);
    if (problem !== null) return `ERROR: ${problem}. ${expects(tool.spec)}`;
    const timeoutMs = tool.options.timeoutMs ?? options.timeoutMs;
    const outcome = runGuarded(tool.fn, { ...(args as Record<string, unknown>) }, timeoutMs, () => options.signal);
    const observe = (ended: Outcome): string => {
      switch (ended.kind) {
        case "returned":
          return encodeResult(name, ended.value);
        case "threw":
          return `ERROR: ${name} failed: ${describeThrown(ended.error)}`;
        case "timedOut":
          return `ERROR: ${name} timed out after ${timeoutMs} ms. It may still have had an effect; check before calling it again.`;
      }
    };
    return outcome instanceof Promise ? outcome.then(observe) : observe(outcome);
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

function checkOptions(name: string, { timeoutMs, maxResultChars }: ToolOptions): void {
  if (timeoutMs !== undefined && !isTimeout(timeoutMs)) {
    throw new ToolSchemaError(
      `${name}: timeoutMs must be milliseconds above 0 and at most ${MAX_TIMER_MS}, or Infinity; got ${timeoutMs}`,
    );
  }
  if (maxResultChars !== undefined && !isCharLimit(maxResultChars)) {
    throw new ToolSchemaError(`${name}: maxResultChars must be a whole number above 0; got ${maxResultChars}`);
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
