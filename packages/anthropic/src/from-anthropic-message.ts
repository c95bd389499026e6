import type { Message, ModelReply, ToolCall, Usage } from "@agentloop/core";
import { assignCallIds } from "@agentloop/core/adapter";
import type { Message as AnthropicMessage } from "@anthropic-ai/sdk/resources/messages";
import { AnthropicResponseError } from "./errors.js";

/** A content block as it may arrive: every field is checked, none trusted. */
interface WireBlock {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly input?: unknown;
}

/** The ids the API accepts on `tool_use` blocks, and so in the next request's history. */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Maps a Messages API reply to a `ModelReply`: the text blocks joined as `content`, each
 * `tool_use` block a call in order, other blocks (thinking, server tools) left out. Model mistakes
 * never throw: an `input` that is not an object is kept as JSON in `rawArgs`, and missing,
 * malformed or repeated ids get stable positional ones (see `assignCallIds`). A reply cut off by
 * `stop_reason: "max_tokens"` is mapped like any other. `usage` becomes `{ inputTokens,
 * outputTokens }`, input counting cache writes and reads too. `messages` is the list the model was
 * shown. Throws `AnthropicResponseError` when the body has no `content` array.
 */
export function fromAnthropicMessage(reply: AnthropicMessage, messages: readonly Message[]): ModelReply {
  const blocks: unknown = (reply as { content?: unknown }).content;
  if (!Array.isArray(blocks)) {
    throw new AnthropicResponseError("the message has no content array", { cause: reply });
  }
  const wire = blocks.filter((block): block is WireBlock => typeof block === "object" && block !== null);
  const content = wire.flatMap((block) =>
    block.type === "text" && typeof block.text === "string" ? [block.text] : [],
  );
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
  const usage = toUsage((reply as { usage?: unknown }).usage);
  return usage === undefined
    ? { content: content.join(""), toolCalls }
    : { content: content.join(""), toolCalls, usage };
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
  const cached =
    (isCount(cache_creation_input_tokens) ? cache_creation_input_tokens : 0) +
    (isCount(cache_read_input_tokens) ? cache_read_input_tokens : 0);
  return { inputTokens: input_tokens + cached, outputTokens: output_tokens };
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
