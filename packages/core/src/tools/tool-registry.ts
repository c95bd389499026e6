import type { MemoryScope, MessageContent, ToolCall, ToolOutcome, ToolParameters, ToolSpec } from "../data/index.js";
import { isPlainObject, ToolSchemaError } from "../data/index.js";
import { cutResult } from "./cut-result.js";
import { type Outcome, runGuarded } from "./run-guarded.js";
import { describeSafely, encodeResult, labelOf } from "./safe-observation.js";
import type { ArgsOf, Checked, CompiledParameters, ToolSchema } from "./schema/index.js";
import { validateSubset } from "./schema/index.js";
import { type CompiledTool, compileTool, type Tool, type ToolFunction, type ToolPerformer } from "./tool.js";
import type { ToolAsk, ToolNote } from "./tool-function.js";
import { checkOptions, type ToolOptions } from "./tool-options.js";

export type { ToolFunction } from "./tool.js";
export type { ToolOptions } from "./tool-options.js";

/** Limits of one execution that the run sets for tools that do not set their own. */
export interface ExecuteOptions {
  /** Aborts the tool's signal: the run was cancelled. */
  readonly signal?: AbortSignal;
  /** Milliseconds the tool may take (no limit when absent). */
  readonly timeoutMs?: number;
  /** Longer observations are cut (see `cutResult`); no limit when absent. */
  readonly maxResultChars?: number;
  /** The tool's `ask` (absent: it rejects, since nobody can answer). */
  readonly ask?: ToolAsk;
  /** The tool's `note` and the notes of its earlier attempts (absent: nothing is kept). */
  readonly notes?: { readonly note: ToolNote; readonly notes: readonly unknown[] };
  /** The run's memory scope, for the tool's context (absent: the run has none). */
  readonly memoryScope?: MemoryScope | undefined;
}

/** What `register`'s function gets: inferred as `tool()` infers it (`never`, which accepts any declaration, only for a schema whose shape the type system cannot see). */
export type RegisteredArgs<P> = ArgsOf<P>;

interface Entry {
  readonly spec: ToolSpec;
  readonly fn: ToolFunction<Record<string, unknown>>;
  readonly options: ToolOptions;
  readonly parameters: CompiledParameters;
  /** The schema of a tool of the spec's subset, checked without the general path's allocations. */
  readonly subset: ToolParameters | undefined;
  /** How a run performs the tool's calls when not by `fn` (absent: a plain tool). */
  readonly performer: ToolPerformer | undefined;
}

/**
 * Name → tool. The registry is both the list of tools shown to the model and the allow-list:
 * a name that is not registered cannot run, whatever the model writes.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Entry>();
  /** The kinds of performer its tools have: so that a run asks once, not per tool, whether it has agent tools. */
  readonly #performed = new Set<ToolPerformer["kind"]>();
  /** The lists every run's settings read, made once per set of tools (`add` clears them). */
  #lists: ToolLists | undefined;

  /** A registry holding `tools`, as `add` adds them. */
  constructor(tools?: Iterable<Tool>) {
    if (tools !== undefined) this.add(...tools);
  }

  /**
   * Adds tools made by `tool()` (or plain objects of the same shape), in order; throws
   * `ToolSchemaError` for a duplicate name or a tool `tool()` would refuse, and then adds none of them.
   */
  add(...tools: Tool[]): this {
    const entries = tools.map((each) => entryOf(compileTool(each)));
    const names = new Set(this.#tools.keys());
    for (const { spec } of entries) {
      if (names.has(spec.name)) throw new ToolSchemaError(`tool '${spec.name}' is already registered`);
      names.add(spec.name);
    }
    for (const entry of entries) {
      this.#tools.set(entry.spec.name, entry);
      if (entry.performer !== undefined) this.#performed.add(entry.performer.kind);
    }
    this.#lists = undefined;
    return this;
  }

  /**
   * Adds one tool; `parameters` may be any of the three kinds `tool()` takes, and `fn`'s arguments
   * are typed from them as `tool()` types them (a `ToolParameters` variable lets `fn` declare its
   * own). Throws `ToolSchemaError` now, not mid-run, for a bad name, a duplicate, a description
   * that is not a string, a schema the validator cannot enforce, or a bad option.
   */
  register<const P extends ToolSchema>(
    name: string,
    description: string,
    parameters: P,
    fn: ToolFunction<RegisteredArgs<P>>,
    options?: ToolOptions,
  ): void;
  /** As above, for a function that declares its arguments and takes as given some that `parameters` leave optional, as functions written before the inference do. */
  register<const P extends ToolSchema>(
    name: string,
    description: string,
    parameters: P,
    fn: ToolFunction<Required<RegisteredArgs<P>>>,
    options?: ToolOptions,
  ): void;
  register(
    name: string,
    description: string,
    parameters: ToolSchema,
    fn: ToolFunction<never>,
    options: ToolOptions = {},
  ): void {
    const checked = checkOptions(typeof name === "string" ? name : "tool", options, true);
    this.add({ name, description, parameters, execute: fn as ToolFunction, ...checked });
  }

  /** Whether `execute` would call the tool's function for this call: a known name and valid arguments (true while a Standard Schema's check is still pending). */
  wouldRun(call: ToolCall): boolean {
    try {
      const entry = this.#tools.get(call.name);
      const args = call.rawArgs === undefined ? call.args : parseArgs(call.rawArgs);
      if (entry === undefined || typeof args === "string") return false;
      if (entry.subset !== undefined) return validateSubset(args, entry.subset) === null;
      const checked = entry.parameters.check(args);
      return checked instanceof Promise ? true : checked.ok;
    } catch {
      return false;
    }
  }

  /** The function registered under `name` (undefined for an unknown name). */
  functionOf(name: string): ToolFunction<never> | undefined {
    return this.#tools.get(name)?.fn;
  }

  /** How a run performs the calls of tool `name` when not by its function (an agent tool's child, an ask-user tool's person); undefined for a plain or unknown tool. */
  performerOf(name: string): ToolPerformer | undefined {
    return this.#tools.get(name)?.performer;
  }

  /** Whether some tool of the registry is performed as `kind` says, in O(1). */
  hasPerformer(kind: ToolPerformer["kind"]): boolean {
    return this.#performed.has(kind);
  }

  /** Whether `name` is registered as idempotent; false for unknown names. */
  isIdempotent(name: string): boolean {
    return this.#tools.get(name)?.options.idempotent === true;
  }

  /** The names of the tools registered with `needsApproval`, in registration order. */
  approvalRequired(): string[] {
    return this.#listed().approvalRequired.slice();
  }

  /** The names of the tools registered as `idempotent`, in registration order. */
  idempotentTools(): string[] {
    return this.#listed().idempotentTools.slice();
  }

  /** The names of the tools registered as `repeatable`, in registration order. */
  repeatableTools(): string[] {
    return this.#listed().repeatableTools.slice();
  }

  /** What the model is shown, in registration order: name, description and JSON Schema, never the function. */
  specs(): ToolSpec[] {
    return this.#listed().specs.slice();
  }

  // Every run reads these lists from its registry: made once, each run gets a copy of its own.
  #listed(): ToolLists {
    this.#lists ??= {
      specs: Array.from(this.#tools.values(), (entry) => entry.spec),
      approvalRequired: this.#namesWith("needsApproval"),
      idempotentTools: this.#namesWith("idempotent"),
      repeatableTools: this.#namesWith("repeatable"),
    };
    return this.#lists;
  }

  /**
   * Runs one call and returns its observation: the result as JSON, the parts of a result the tool
   * gave as `contentParts(...)`, or a string starting `ERROR:` that says what was wrong and what a
   * valid call looks like. The observation of `run`'s outcome; never rejects.
   */
  async execute(name: string, args: unknown, options: ExecuteOptions = {}): Promise<MessageContent> {
    return (await this.run(name, args, options)).content;
  }

  /**
   * Runs one call and says how it ended (`ok`, `invalid-args`, `threw`, `timeout`, `unknown-tool`)
   * with its observation. Checks, in order, that the name is registered, that the arguments pass
   * the schema, and that the function returns without throwing; nothing runs for an invalid call.
   * Never rejects, whatever the arguments, the function or its result do. A registry that answers
   * calls its own way (a recording) overrides this.
   */
  async run(name: string, args: unknown, options: ExecuteOptions = {}): Promise<ToolOutcome> {
    const label = labelOf(name);
    let outcome: ToolOutcome;
    let limit: number | undefined;
    try {
      limit = this.#tools.get(name)?.options.maxResultChars ?? options.maxResultChars;
      const ran = this.#execute(label, args, options);
      outcome = ran instanceof Promise ? await ran : ran;
    } catch (error) {
      // Only hostile arguments or options (a throwing getter or Proxy) get here: the function itself is guarded.
      outcome = { kind: "invalid-args", content: `ERROR: ${label} could not be run: ${describeSafely(error)}` };
    }
    // Parts are not cut: each is held to MAX_PART_BYTES when the tool makes them.
    const { content } = outcome;
    if (limit === undefined || typeof content !== "string") return outcome;
    const cut = cutResult(content, limit);
    return cut === content ? outcome : { ...outcome, content: cut };
  }

  /** Like `run`, for a call as the model sent it: arguments that arrived as text that is not a JSON object (`rawArgs`) are refused with the parse problem. */
  executeCall(call: ToolCall, options: ExecuteOptions = {}): Promise<ToolOutcome> {
    try {
      if (call.rawArgs === undefined) return this.run(call.name, call.args, options);
      const parsed = parseArgs(call.rawArgs);
      if (typeof parsed !== "string") return this.run(call.name, parsed, options);
      const entry = this.#tools.get(call.name);
      return Promise.resolve(
        entry === undefined
          ? this.#unknownTool(call.name)
          : invalid(
              `the arguments of '${call.name}' are not a valid JSON object (${parsed}). Send one JSON object.`,
              entry,
            ),
      );
    } catch (error) {
      return Promise.resolve({
        kind: "invalid-args",
        content: `ERROR: the call could not be read: ${describeSafely(error)}`,
      });
    }
  }

  #namesWith(option: "needsApproval" | "idempotent" | "repeatable"): string[] {
    return [...this.#tools.values()].filter((entry) => entry.options[option] === true).map((e) => e.spec.name);
  }

  /** The outcome, at once when the check and the function finish at once (most tools), else a promise of it. */
  #execute(name: string, args: unknown, options: ExecuteOptions): ToolOutcome | Promise<ToolOutcome> {
    const entry = this.#tools.get(name);
    if (entry === undefined) return this.#unknownTool(name);
    if (entry.subset !== undefined) {
      const problem = validateSubset(args, entry.subset);
      if (problem !== null) return invalid(`${problem}.`, entry);
      return this.#run(entry, { ...(args as Record<string, unknown>) }, options);
    }
    const checked = entry.parameters.check(args);
    if (checked instanceof Promise) return checked.then((settled) => this.#runChecked(entry, settled, options));
    return this.#runChecked(entry, checked, options);
  }

  #runChecked(entry: Entry, checked: Checked, options: ExecuteOptions): ToolOutcome | Promise<ToolOutcome> {
    if (!checked.ok) return invalid(`${checked.problem}.`, entry);
    return this.#run(entry, checked.args, options);
  }

  #run(
    { spec, fn, options: own }: Entry,
    args: Record<string, unknown>,
    options: ExecuteOptions,
  ): ToolOutcome | Promise<ToolOutcome> {
    const name = spec.name;
    const timeoutMs = own.timeoutMs ?? options.timeoutMs;
    const outcome = runGuarded(fn, args, timeoutMs, options);
    const observe = (ended: Outcome): ToolOutcome => {
      switch (ended.kind) {
        case "returned":
          return encodeResult(name, ended.value);
        case "threw":
          return { kind: "threw", content: `ERROR: ${name} failed: ${describeSafely(ended.error)}` };
        case "timedOut":
          return {
            kind: "timeout",
            content: `ERROR: ${name} timed out after ${timeoutMs} ms. It may still have had an effect; check before calling it again.`,
          };
      }
    };
    return outcome instanceof Promise ? outcome.then(observe) : observe(outcome);
  }

  #unknownTool(name: string): ToolOutcome {
    const names = [...this.#tools.keys()].sort().map((known) => `'${known}'`);
    return {
      kind: "unknown-tool",
      content: `ERROR: unknown tool '${labelOf(name)}'. Available tools: [${names.join(", ")}]`,
    };
  }
}

interface ToolLists {
  readonly specs: readonly ToolSpec[];
  readonly approvalRequired: readonly string[];
  readonly idempotentTools: readonly string[];
  readonly repeatableTools: readonly string[];
}

function entryOf(tool: CompiledTool): Entry {
  const spec = Object.freeze({ name: tool.name, description: tool.description, parameters: tool.parameters.schema });
  const { execute: fn, options, parameters, performer } = tool;
  return { spec, fn, options, parameters, subset: parameters.subset, performer };
}

/** Arguments refused with `problem` (a sentence), followed by what the tool takes. */
function invalid(problem: string, entry: Entry): ToolOutcome {
  return { kind: "invalid-args", content: `ERROR: ${problem} ${expects(entry.spec)}` };
}

/** What the argument error shows after its sentence: the properties the tool takes (or its whole schema when it has none at the top). */
function expects(spec: ToolSpec): string {
  const schema = spec.parameters;
  const other = Object.keys(schema).some((keyword) => !["type", "required", "$schema"].includes(keyword));
  const shown =
    schema.properties ?? (other ? Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$schema")) : {});
  return `${spec.name} expects ${JSON.stringify(shown)}`;
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
