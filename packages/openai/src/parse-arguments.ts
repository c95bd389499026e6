/** A call's arguments as the agent keeps them: the object, or `{}` plus the text when the text is not a JSON object. */
export interface ParsedArguments {
  readonly args: Record<string, unknown>;
  readonly rawArgs?: string;
}

/**
 * Reads a function call's `arguments`, which the Chat Completions API sends as JSON text. A JSON
 * object becomes `args`; anything else (cut-off or invalid JSON, an array, a string) becomes
 * `args: {}` with the text in `rawArgs`, so the harness can tell the model what was wrong instead
 * of crashing. Missing or blank text means no arguments, which some local servers send for
 * tools without parameters; an object sent as-is by a lenient server is taken as it is.
 */
export function parseArguments(raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null) return { args: {} };
  if (isJsonObject(raw)) return { args: raw };
  if (typeof raw !== "string") return { args: {}, rawArgs: JSON.stringify(raw) ?? String(raw) };
  if (raw.trim() === "") return { args: {} };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isJsonObject(parsed)) return { args: parsed };
  } catch {
    // Not JSON: the harness quotes the parse error to the model.
  }
  return { args: {}, rawArgs: raw };
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
