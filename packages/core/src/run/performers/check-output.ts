import type { OutputChecked } from "../../data/index.js";
import { copyJson, describeThrown, ToolSchemaError } from "../../data/index.js";
import { type CompiledParameters, compileParameters, type ToolSchema } from "../../tools/index.js";

/** A turn's answer schema, compiled once: the JSON Schema logged and sent to the provider, and the check each answer passes. */
export interface OutputSchema {
  readonly schema: Readonly<Record<string, unknown>>;
  /** Parses an answer and checks it against the schema; never rejects. */
  check(text: string): Promise<OutputChecked>;
}

/**
 * Compiles `output` the way tool parameters are compiled (so an answer is refused in the same
 * sentences as a call's arguments, naming the path); throws `ToolSchemaError` for a schema that
 * cannot be enforced, before anything runs.
 */
export function compileOutput(output: ToolSchema): OutputSchema {
  let compiled: CompiledParameters;
  try {
    compiled = compileParameters("output", output);
  } catch (error) {
    throw error instanceof ToolSchemaError ? error : new ToolSchemaError("output: not a schema", { cause: error });
  }
  return { schema: compiled.schema, check: (text) => checkAnswer(compiled, text) };
}

async function checkAnswer(compiled: CompiledParameters, text: string): Promise<OutputChecked> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return invalid(`the answer is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    const checked = await compiled.check(parsed);
    if (!checked.ok) return invalid(checked.problem);
    // The value is logged: what a transform makes of it must survive JSON, or replay would differ.
    const copied = copyJson(checked.args);
    if (!copied.ok) return invalid(`the schema turned the answer into something that is not JSON: ${copied.problem}`);
    return { type: "output.checked", valid: true, value: copied.value };
  } catch (error) {
    return invalid(`the output schema could not check the answer: ${describeThrown(error)}`);
  }
}

function invalid(problem: string): OutputChecked {
  return { type: "output.checked", valid: false, problem };
}
