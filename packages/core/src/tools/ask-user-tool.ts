import type { AskToolSettings } from "../data/index.js";
import { ToolSchemaError } from "../data/index.js";
import { type CompiledParameters, compileParameters, type ToolSchema } from "./schema/index.js";
import { PERFORMER, type Tool, tool } from "./tool.js";
import type { ToolRegistry } from "./tool-registry.js";

/** What `askUserTool` takes: the tool's name and description, and the shape its answers must have. */
export interface AskUserToolDefinition {
  /** 1-64 letters, digits, `_` or `-` (default `ask_user`). */
  readonly name?: string;
  readonly description?: string;
  /** The answer's shape: a Standard Schema (zod), `jsonSchema(...)`, or JSON Schema with an object root (default: any JSON value). */
  readonly answer?: ToolSchema;
}

/** The name of an ask-user tool that gives none. */
export const DEFAULT_ASK_USER_NAME = "ask_user";

const DEFAULT_DESCRIPTION =
  "Ask the user a question and wait for the answer. Use it only when you cannot go on without something only the user knows.";

const QUESTION_PARAMETERS = {
  type: "object",
  properties: { question: { type: "string", description: "The question, in full: the user sees nothing else." } },
  required: ["question"],
} as const;

/**
 * A tool the model calls with `{ question: string }` to ask a person: the run pauses with status
 * `awaiting_input` and the question in `pendingQuestions`, and `resumeAgent(..., { answers: {
 * [callId]: answer } })` goes on with the answer (as JSON) as the call's observation. An answer
 * that does not fit `answer` is refused before anything is logged. Throws `ToolSchemaError` now
 * for a bad name or an answer schema that cannot be enforced.
 */
export function askUserTool(definition: AskUserToolDefinition = {}): Tool<{ question: string }> {
  const { name = DEFAULT_ASK_USER_NAME, description = DEFAULT_DESCRIPTION, answer } = definition;
  const compiled = answer === undefined ? undefined : compileAnswer(name, answer);
  // Reached only for a call the run could not pause for (its arguments were refused first otherwise).
  const execute = (): string => `ERROR: ${name} could not ask the user: the question must be a string.`;
  const performer =
    compiled === undefined ? { kind: "ask-user" as const } : { kind: "ask-user" as const, answer: compiled };
  return tool({ name, description, parameters: QUESTION_PARAMETERS, execute, [PERFORMER]: performer });
}

function compileAnswer(name: string, answer: ToolSchema): CompiledParameters {
  try {
    return compileParameters(`${name}: answer`, answer);
  } catch (error) {
    throw error instanceof ToolSchemaError
      ? error
      : new ToolSchemaError(`${name}: answer is not a schema`, { cause: error });
  }
}

/** The ask-user tools of `registry`, as `run.started` logs them, in registration order. */
export function askToolsOf(registry: ToolRegistry): AskToolSettings[] {
  const found: AskToolSettings[] = [];
  if (!registry.hasPerformer("ask-user")) return found;
  for (const { name } of registry.specs()) {
    const ask = registry.performerOf(name);
    if (ask?.kind !== "ask-user") continue;
    found.push(ask.answer === undefined ? { name } : { name, answer: ask.answer.schema });
  }
  return found;
}
