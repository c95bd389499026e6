import type { Message, ModelReply, ToolCall, Usage } from "@agentloop/core";
import { assignCallIds } from "@agentloop/core/adapter";
import type { ChatCompletion } from "openai/resources/chat/completions";
import { OpenAIResponseError } from "./errors.js";
import { parseArguments } from "./parse-arguments.js";

/** A tool call as it may arrive from any OpenAI-compatible server: every field is checked, none trusted. */
interface WireToolCall {
  readonly id?: unknown;
  readonly type?: unknown;
  readonly function?: { readonly name?: unknown; readonly arguments?: unknown } | null;
  readonly custom?: { readonly name?: unknown; readonly input?: unknown } | null;
}

/**
 * Maps the first choice of a chat completion to a `ModelReply`. Text and tool calls may come
 * together; `refusal` text counts as content when `content` is null. Model mistakes never throw:
 * arguments that are not a JSON object are kept in `rawArgs`, and empty, missing or repeated call
 * ids get stable positional ones (see `assignCallIds`). A reply cut off by `finish_reason:
 * "length"` is mapped like any other. `usage` becomes `{ inputTokens, outputTokens }` when the
 * server reports it. `messages` is the list the model was shown. Throws `OpenAIResponseError` when
 * the body has no `choices[0].message`.
 */
export function fromOpenAICompletion(completion: ChatCompletion, messages: readonly Message[]): ModelReply {
  const message = (completion.choices as ChatCompletion["choices"] | undefined)?.[0]?.message;
  if (typeof message !== "object" || message === null) {
    throw new OpenAIResponseError("the chat completion has no choices[0].message", { cause: completion });
  }
  const wireCalls: readonly WireToolCall[] = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const ids = assignCallIds(
    wireCalls.map((call) => (typeof call.id === "string" ? call.id : undefined)),
    messages,
  );
  const toolCalls = wireCalls.map((call, index) => toToolCall(call, ids[index] ?? `call_${index}`));
  const content = textOf(message.content) ?? textOf(message.refusal) ?? "";
  const usage = toUsage(completion.usage);
  return usage === undefined ? { content, toolCalls } : { content, toolCalls, usage };
}

function toToolCall(call: WireToolCall, id: string): ToolCall {
  const isCustom = call.type === "custom";
  const name = isCustom ? call.custom?.name : call.function?.name;
  const raw = isCustom ? call.custom?.input : call.function?.arguments;
  return { id, name: typeof name === "string" ? name : "", ...parseArguments(raw) };
}

function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function toUsage(usage: unknown): Usage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const { prompt_tokens: input, completion_tokens: output } = usage as Record<string, unknown>;
  return isCount(input) && isCount(output) ? { inputTokens: input, outputTokens: output } : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
