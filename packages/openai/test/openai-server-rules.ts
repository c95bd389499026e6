import type { RecordedRequest } from "@agentloop/provider-testkit";
import { type Dialect, REASONING_FIELD } from "./openai-wire-format.js";

/** What the fake server handed out: the reasoning that came with each tool call it sent. */
export class IssuedReasoning {
  readonly #byCall = new Map<string, string>();

  /** Records the reasoning of a completion body the server sends. */
  remember(body: unknown): void {
    const message = (body as { choices?: { message?: Record<string, unknown> }[] } | undefined)?.choices?.[0]?.message;
    const text = message?.reasoning_content ?? message?.reasoning;
    if (typeof text !== "string" || !Array.isArray(message?.tool_calls)) return;
    for (const call of message.tool_calls as { id?: unknown }[])
      if (typeof call.id === "string") this.#byCall.set(call.id, text);
  }

  /** Whether any of these calls came with reasoning. */
  had(ids: readonly string[]): boolean {
    return ids.some((id) => this.#byCall.has(id));
  }
}

interface WireAssistant {
  readonly role?: unknown;
  readonly tool_calls?: { readonly id?: unknown; readonly function?: { readonly arguments?: unknown } }[];
  readonly [field: string]: unknown;
}

/**
 * The rules a compatible server enforces beyond the wire format, each with that server's own
 * error text: Ollama refuses tool-call history whose arguments are not a JSON object (its
 * `FromCompletionToolCall` unmarshals them); DeepSeek in thinking mode refuses tool-call history
 * without the `reasoning_content` it sent. For vLLM, Ollama, LM Studio and llama.cpp, this suite
 * also checks that the reasoning comes back under their field, as their docs ask for interleaved
 * thinking (they do not refuse a request without it). Returns the problems, `[]` when none.
 */
export function checkServerRules(request: RecordedRequest, dialect: Dialect, issued: IssuedReasoning): string[] {
  const body = request.body as { messages?: unknown; tools?: unknown; response_format?: unknown } | undefined;
  const strictProblems =
    dialect === "openai" ? [...checkStrictTools(body?.tools), ...checkStrictResponseFormat(body?.response_format)] : [];
  if (strictProblems.length > 0) return strictProblems;
  const messages = body?.messages;
  if (!Array.isArray(messages)) return [];
  const field = REASONING_FIELD[dialect];
  return (messages as WireAssistant[]).flatMap((message, index) => {
    if (message?.role !== "assistant" || !Array.isArray(message.tool_calls)) return [];
    if (dialect === "ollama" && message.tool_calls.some((call) => !isJsonObject(call.function?.arguments))) {
      return ["invalid tool call arguments"];
    }
    const ids = message.tool_calls.flatMap((call) => (typeof call.id === "string" ? [call.id] : []));
    if (field === undefined || !issued.had(ids) || typeof message[field] === "string") return [];
    return dialect === "deepseek"
      ? ["The `reasoning_content` in the thinking mode must be passed back to the API."]
      : [
          `messages[${index}].${field}: this suite's check: the reasoning the server sent with these tool calls did not come back`,
        ];
  });
}

function isJsonObject(text: unknown): boolean {
  if (typeof text !== "string") return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

type SchemaNode = { readonly [keyword: string]: unknown };

/**
 * OpenAI's checks of a function sent with `strict: true` (Structured Outputs), with its error
 * texts as the API returns them (code `invalid_function_parameters`): every object schema, at the
 * root and below (`properties`, `items`, `anyOf`, `$defs`), sets `additionalProperties: false`
 * and lists every property in `required`; `default` is not permitted.
 */
export function checkStrictTools(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: { function?: { name?: unknown; strict?: unknown; parameters?: unknown } }) => {
    const fn = tool?.function;
    if (fn?.strict !== true || typeof fn.parameters !== "object" || fn.parameters === null) return [];
    const problem = strictProblem(fn.parameters as SchemaNode, []);
    return problem === null ? [] : [`Invalid schema for function '${String(fn.name)}': ${problem}`];
  });
}

/** OpenAI's checks of a strict `response_format` schema: the same rules as a strict function's parameters. */
export function checkStrictResponseFormat(format: unknown): string[] {
  const spec = (format as { json_schema?: { name?: unknown; strict?: unknown; schema?: unknown } } | undefined)
    ?.json_schema;
  if (spec?.strict !== true || typeof spec.schema !== "object" || spec.schema === null) return [];
  const problem = strictProblem(spec.schema as SchemaNode, []);
  return problem === null ? [] : [`Invalid schema for response_format '${String(spec.name)}': ${problem}`];
}

function strictProblem(schema: SchemaNode, context: readonly string[]): string | null {
  const at = `In context=(${context.map((part) => `'${part}'`).join(", ")})`;
  if ("default" in schema) return `${at}, 'default' is not permitted.`;
  const properties = schema.properties as SchemaNode | undefined;
  if (schema.type === "object" || properties !== undefined) {
    if (schema.additionalProperties !== false) {
      return `${at}, 'additionalProperties' is required to be supplied and to be false.`;
    }
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = Object.keys(properties ?? {}).find((key) => !required.includes(key));
    if (missing !== undefined) {
      return `${at}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    }
  }
  const children: [string[], unknown][] = [
    ...Object.entries(properties ?? {}).map(([key, child]): [string[], unknown] => [["properties", key], child]),
    [["items"], schema.items],
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []).map((child, index): [string[], unknown] => [
      ["anyOf", String(index)],
      child,
    ]),
    ...Object.entries((schema.$defs as SchemaNode | undefined) ?? {}).map(([key, child]): [string[], unknown] => [
      ["$defs", key],
      child,
    ]),
  ];
  for (const [path, child] of children) {
    if (typeof child !== "object" || child === null) continue;
    const problem = strictProblem(child as SchemaNode, [...context, ...path]);
    if (problem !== null) return problem;
  }
  return null;
}
