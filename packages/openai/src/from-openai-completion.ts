import type { FinishReason, Message, ModelReply, ReasoningPart, ToolCall, Usage } from "@agentloop/core/adapter";
import { assignCallIds, isCount } from "@agentloop/core/adapter";
import type { ChatCompletion } from "openai/resources/chat/completions";
import { OpenAIResponseError } from "./errors.js";
import { parseArguments } from "./parse-arguments.js";

/**
 * A tool call as it may arrive from any OpenAI-compatible server: every field is checked, none
 * trusted. `name`/`arguments` at the top level are the flat shape llama.cpp's docs show.
 */
interface WireToolCall {
  readonly id?: unknown;
  readonly type?: unknown;
  readonly function?: { readonly name?: unknown; readonly arguments?: unknown } | null;
  readonly custom?: { readonly name?: unknown; readonly input?: unknown } | null;
  readonly name?: unknown;
  readonly arguments?: unknown;
}

/** The message fields read, including the reasoning fields compatible servers add. */
interface WireMessage {
  readonly content?: unknown;
  readonly refusal?: unknown;
  readonly reasoning_content?: unknown;
  readonly reasoning?: unknown;
  readonly tool_calls?: unknown;
}

/** Finish reasons that end a reply the ordinary way (`tool` is llama.cpp's older name for `tool_calls`). */
const ORDINARY = new Set(["stop", "tool_calls", "function_call", "tool"]);

/**
 * Maps the first choice of a chat completion to a `ModelReply`. Text and tool calls may come
 * together. A `refusal` sets `finishReason: "refusal"` and is the content when `content` is empty;
 * `length` and `content_filter` become `"length"` and `"content-filter"`, any other unusual reason
 * `"other"`. Reasoning text (`reasoning_content`, which DeepSeek, llama.cpp and older vLLM send,
 * else `reasoning`, which vLLM, Ollama and LM Studio send) is kept as one reasoning part, exactly
 * as received. Model mistakes never throw: arguments that are not a JSON object are kept in
 * `rawArgs`, and empty, missing or repeated call ids get stable positional ones (see
 * `assignCallIds`). `messages` is the list the model was shown. Throws `OpenAIResponseError` when
 * the body has no `choices[0].message`.
 */
export function fromOpenAICompletion(completion: ChatCompletion, messages: readonly Message[]): ModelReply {
  const choice = (completion.choices as ChatCompletion["choices"] | undefined)?.[0];
  const message: unknown = choice?.message;
  if (typeof message !== "object" || message === null) {
    throw new OpenAIResponseError("the chat completion has no choices[0].message", { cause: completion });
  }
  const wire = message as WireMessage;
  const wireCalls: readonly WireToolCall[] = Array.isArray(wire.tool_calls) ? wire.tool_calls : [];
  const ids = assignCallIds(
    wireCalls.map((call) => (typeof call.id === "string" ? call.id : undefined)),
    messages,
  );
  const toolCalls = wireCalls.map((call, index) => toToolCall(call, ids[index] ?? `call_${index}`));
  const refusal = nonEmpty(wire.refusal);
  const content = nonEmpty(wire.content) ?? refusal ?? "";
  const usage = toUsage(completion.usage);
  const reasoning = toReasoning(wire);
  const finishReason = refusal === undefined ? toFinishReason(choice?.finish_reason) : "refusal";
  return {
    content,
    toolCalls,
    ...(usage === undefined ? {} : { usage }),
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(finishReason === undefined ? {} : { finishReason }),
  };
}

function toToolCall(call: WireToolCall, id: string): ToolCall {
  const isCustom = call.type === "custom";
  const fn = call.function ?? (call.function === undefined && "name" in call ? call : undefined);
  const name = isCustom ? call.custom?.name : fn?.name;
  const raw = isCustom ? call.custom?.input : fn?.arguments;
  return { id, name: typeof name === "string" ? name : "", ...parseArguments(raw) };
}

function toReasoning(message: WireMessage): ReasoningPart[] | undefined {
  const text = typeof message.reasoning_content === "string" ? message.reasoning_content : message.reasoning;
  return typeof text === "string" ? [{ type: "reasoning", text }] : undefined;
}

/** `undefined` for a reply that ended the ordinary way, so that traces match the scripted model's. */
export function toFinishReason(reason: unknown): FinishReason | undefined {
  if (reason === null || reason === undefined || (typeof reason === "string" && ORDINARY.has(reason))) return undefined;
  if (reason === "length") return "length";
  if (reason === "content_filter") return "content-filter";
  return "other";
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The usage as billed: `prompt_tokens` (which counts the cached ones) and `completion_tokens`, with
 * `prompt_tokens_details.cached_tokens` as `cachedInputTokens` when the provider read any from its
 * prompt cache (OpenAI writes its cache at no charge, so there are no cache writes to report).
 */
function toUsage(usage: unknown): Usage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const { prompt_tokens: input, completion_tokens: output, prompt_tokens_details } = usage as Record<string, unknown>;
  if (!isCount(input) || !isCount(output)) return undefined;
  const details =
    typeof prompt_tokens_details === "object" && prompt_tokens_details !== null ? prompt_tokens_details : {};
  const cached = (details as Record<string, unknown>).cached_tokens;
  // A server that counts more cached tokens than prompt tokens is not believed about the cache.
  return isCount(cached) && cached > 0 && cached <= input
    ? { inputTokens: input, outputTokens: output, cachedInputTokens: cached }
    : { inputTokens: input, outputTokens: output };
}
