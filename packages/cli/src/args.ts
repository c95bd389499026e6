import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./cli-error.js";

/** `--no-color` and `-h`/`--help`, which every command that prints takes (for `parseArgs`). */
export const VIEW_OPTIONS = {
  "no-color": { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Those, and `--json`: the result as JSON, and no progress. */
export const JSON_VIEW_OPTIONS = { json: { type: "boolean", default: false }, ...VIEW_OPTIONS } as const;

/** The help lines of `JSON_VIEW_OPTIONS`, for a command that runs the agent. */
export const JSON_VIEW_HELP = `  --json                   print the AgentResult as JSON, and no progress
  --no-color               no ANSI colors (also NO_COLOR=1)
  -h, --help               this help`;

/** `--model` and `--script`: where a run's model comes from. */
export const MODEL_OPTIONS = { model: { type: "string" }, script: { type: "string" } } as const;

/**
 * Runs `node:util` `parseArgs` for one command and turns its errors (an unknown flag, a flag
 * without its value) into a `UsageError` that names the command and points at its help.
 */
export function parseCommandLine<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
    if (!code.startsWith("ERR_PARSE_ARGS")) throw error;
    throw new UsageError(`${describeParseError(error)}; see 'agentloop ${command} --help'`);
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: O }>>;
type ParsedFlags<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O }>>;

/** `parseArgs` of a command that takes positional arguments, its errors made a `UsageError` (see `parseCommandLine`). */
export function parseCommand<O extends Options>(command: string, args: string[], options: O): Parsed<O> {
  return parseCommandLine(command, () => parseArgs({ args, allowPositionals: true, options }));
}

/** `parseArgs` of a command that takes flags only (a positional argument is a `UsageError`, as its other errors are). */
export function parseFlags<O extends Options>(command: string, args: string[], options: O): ParsedFlags<O> {
  return parseCommandLine(command, () => parseArgs({ args, options }));
}

function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /Option '([^']+)' argument missing/.exec(message);
  if (missing) return `option ${missing[1]} needs a value`;
  const ambiguous = /Option '([^']+)' argument is ambiguous/.exec(message);
  if (ambiguous)
    return `option ${ambiguous[1]} needs a value (for a value that starts with '-', write ${ambiguous[1]}=<value>)`;
  const positional = /Unexpected argument '([^']+)'/.exec(message);
  if (positional) return `unexpected argument '${positional[1]}'`;
  return message.split(/\.\s/)[0] ?? message;
}

/**
 * The arguments without a leading `--`, which package managers pass on (`pnpm demo -- --model x`);
 * a `--` after the first argument keeps its meaning: the end of the options.
 */
export function withoutLeadingSeparator(args: readonly string[]): string[] {
  return args[0] === "--" ? args.slice(1) : [...args];
}

/** A whole number of at least `min` from a flag's text, or a `UsageError` naming the flag. */
export function wholeNumber(flag: string, text: string | undefined, min = 0): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${flag} must be a whole number, ${min} or more; got '${text}'`);
  }
  return value;
}

/** Exactly one positional argument, or a `UsageError` that says what was expected. */
export function onePositional(command: string, what: string, positionals: readonly string[]): string {
  const [first, ...rest] = positionals;
  if (first === undefined)
    throw new UsageError(`'agentloop ${command}' needs ${what}; see 'agentloop ${command} --help'`);
  if (rest.length > 0) {
    throw new UsageError(
      `'agentloop ${command}' takes one ${what}, got ${positionals.length} arguments (quote text with spaces)`,
    );
  }
  return first;
}
