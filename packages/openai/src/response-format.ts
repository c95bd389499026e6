import type { ModelCallOptions, ModelReply, ToolSpec } from "@agentloop/core/adapter";
import type { ResponseFormatJSONSchema } from "openai/resources/shared";
import { toStrictParameters, withoutStrictNulls } from "./strict-schema.js";

/** The name the answer's schema is sent under: OpenAI asks for one; the harness checks the answer itself. */
const ANSWER = "answer";

type Output = NonNullable<ModelCallOptions["output"]>;

/**
 * The `response_format` that asks for the run's typed answer: its JSON Schema, converted for
 * strict mode as tool parameters are when the adapter is `strict` (OpenAI then holds the answer to
 * the schema), else as it is with `strict: false`.
 */
export function toResponseFormat(output: Output, strict: boolean): ResponseFormatJSONSchema {
  const { $schema: _dialect, ...schema } = output.schema;
  const json_schema = strict
    ? { name: ANSWER, strict: true, schema: toStrictParameters(answerSpec(output)) }
    : { name: ANSWER, strict: false, schema };
  return { type: "json_schema", json_schema };
}

/**
 * The reply with the `null`s strict mode made the model send for optional properties dropped from
 * its answer, as they are from a call's arguments; an answer that is not a JSON object is left as
 * it came, for the harness to tell the model what is wrong.
 */
export function withoutAnswerNulls(reply: ModelReply, output: Output): ModelReply {
  if (reply.toolCalls.length > 0) return reply;
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.content);
  } catch {
    return reply;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return reply;
  const call = { id: ANSWER, name: ANSWER, args: parsed as Record<string, unknown> };
  const cleaned = withoutStrictNulls(call, [answerSpec(output)]);
  return cleaned === call ? reply : { ...reply, content: JSON.stringify(cleaned.args) };
}

function answerSpec(output: Output): ToolSpec {
  return { name: ANSWER, description: "", parameters: output.schema as ToolSpec["parameters"] };
}
