import type { FinishReason, Message, ModelReply, ReasoningPart, ToolCall, Usage } from "@agentloop/core/adapter";
import { assignCallIds, isCount } from "@agentloop/core/adapter";
import type { Message as AnthropicMessage } from "@anthropic-ai/sdk/resources/messages";
import { AnthropicResponseError } from "./errors.js";

/** A content block as it may arrive: every field is checked, none trusted. */
interface WireBlock {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly thinking?: unknown;
  readonly signature?: unknown;
  readonly data?: unknown;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly input?: unknown;
}

/** The ids the API accepts on `tool_use` blocks, and so in the next request's history. */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/** Stop reasons that end a reply the ordinary way. */
const ORDINARY = new Set(["end_turn", "stop_sequence", "tool_use"]);

/**
 * Maps a Messages API reply to a `ModelReply`: the text blocks joined as `content`, each
 * `tool_use` block a call in order, each `thinking` block (text and signature) and
 * `redacted_thinking` block (opaque data) a reasoning part, in order and exactly as received, so
 * that they go back unchanged. Server-tool blocks are left out. `stop_reason: "refusal"` sets
 * `finishReason: "refusal"`, the content being the reply's text or, when it has none, the API's
 * explanation (`stop_details.explanation`); `max_tokens` and `model_context_window_exceeded` set
 * `"length"`, `pause_turn` and unknown reasons `"other"`. Model mistakes never throw: an `input`
 * that is not an object is kept as JSON in `rawArgs`, and missing, malformed or repeated ids get
 * stable positional ones (see `assignCallIds`). `usage` becomes `{ inputTokens, outputTokens }`,
 * input counting cache writes and reads too, with `cachedInputTokens` (`cache_read_input_tokens`)
 * and `cacheWriteTokens` (`cache_creation_input_tokens`) when there were any. `messages` is the list the model was shown. Throws
 * `AnthropicResponseError` when the body has no `content` array.
 */
export function fromAnthropicMessage(reply: AnthropicMessage, messages: readonly Message[]): ModelReply {
  const blocks: unknown = (reply as { content?: unknown }).content;
  if (!Array.isArray(blocks)) {
    throw new AnthropicResponseError("the message has no content array", { cause: reply });
  }
  const wire = blocks.filter((block): block is WireBlock => typeof block === "object" && block !== null);
  const text = wire.flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : []));
  const uses = wire.filter((block) => block.type === "tool_use");
  const ids = assignCallIds(
    uses.map((use) => (typeof use.id === "string" ? use.id : undefined)),
    messages,
    TOOL_USE_ID,
  );
  const toolCalls = uses.map((use, index): ToolCall => {
    const name = typeof use.name === "string" ? use.name : "";
    return { id: ids[index] ?? `call_${index}`, name, ...toArguments(use.input) };
  });
  const stopReason: unknown = (reply as { stop_reason?: unknown }).stop_reason;
  const finishReason = toFinishReason(stopReason);
  const content = text.join("") || (finishReason === "refusal" ? explanationOf(reply) : "");
  const usage = toUsage((reply as { usage?: unknown }).usage);
  const reasoning = wire.flatMap(toReasoningPart);
  return {
    content,
    toolCalls,
    ...(usage === undefined ? {} : { usage }),
    ...(reasoning.length === 0 ? {} : { reasoning }),
    ...(finishReason === undefined ? {} : { finishReason }),
  };
}

function toReasoningPart(block: WireBlock): ReasoningPart[] {
  if (block.type === "thinking" && typeof block.thinking === "string") {
    return [
      typeof block.signature === "string"
        ? { type: "reasoning", text: block.thinking, signature: block.signature }
        : { type: "reasoning", text: block.thinking },
    ];
  }
  if (block.type === "redacted_thinking" && typeof block.data === "string") {
    return [{ type: "redacted-reasoning", data: block.data }];
  }
  return [];
}

/** `undefined` for a reply that ended the ordinary way, so that traces match the scripted model's. */
export function toFinishReason(reason: unknown): FinishReason | undefined {
  if (reason === null || reason === undefined || (typeof reason === "string" && ORDINARY.has(reason))) return undefined;
  if (reason === "refusal") return "refusal";
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length";
  return "other";
}

function explanationOf(reply: AnthropicMessage): string {
  const details: unknown = (reply as { stop_details?: unknown }).stop_details;
  const explanation = (details as { explanation?: unknown } | null | undefined)?.explanation;
  return typeof explanation === "string" ? explanation : "";
}

function toArguments(input: unknown): { args: Record<string, unknown>; rawArgs?: string } {
  if (input === undefined || input === null) return { args: {} };
  if (typeof input === "object" && !Array.isArray(input)) return { args: input as Record<string, unknown> };
  return { args: {}, rawArgs: JSON.stringify(input) ?? String(input) };
}

function toUsage(usage: unknown): Usage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens } = usage as Record<
    string,
    unknown
  >;
  if (!isCount(input_tokens) || !isCount(output_tokens)) return undefined;
  const written = isCount(cache_creation_input_tokens) ? cache_creation_input_tokens : 0;
  const read = isCount(cache_read_input_tokens) ? cache_read_input_tokens : 0;
  return {
    inputTokens: input_tokens + written + read,
    outputTokens: output_tokens,
    ...(read > 0 ? { cachedInputTokens: read } : {}),
    ...(written > 0 ? { cacheWriteTokens: written } : {}),
  };
}
