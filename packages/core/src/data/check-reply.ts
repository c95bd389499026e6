import { copyFrozenJson, deepFreeze } from "./frozen-json.js";
import { isCount } from "./is-count.js";
import { isPlainObject } from "./is-plain-object.js";
import { checkProviderMetadata } from "./provider-metadata.js";
import type { FinishReason, ModelReply, ReasoningPart, ToolCall, Usage } from "./types.js";

/** Tool call arguments may nest this deep, at most: deeper is garbage no tool needs, and no code should recurse into. */
export const MAX_ARGS_DEPTH = 64;

/**
 * Takes one plain-JSON, deep-frozen copy of what a model returned, reading it exactly once (a
 * getter, a Proxy or a `toJSON` cannot show the log one thing and the tools another), and checks
 * it is a `ModelReply`. Returns the copy, or one sentence saying what is wrong: the caller turns
 * it into a `ModelError`.
 */
export function copyReply(value: unknown): ModelReply | string {
  // Plain JSON data (what adapters return) is copied directly, each property read once; anything
  // else is copied through JSON, which reads it once too (and applies any `toJSON`).
  let copy: unknown;
  let text: string | undefined;
  try {
    copy = copyFrozenJson(value, false);
    if (copy === undefined) text = JSON.stringify(value);
  } catch (error) {
    return `the reply cannot be copied as JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (copy === undefined) {
    if (text === undefined) return `a reply must be an object { content, toolCalls }, got ${kindOf(value)}`;
    copy = JSON.parse(text) as unknown;
  }
  const reply = checkReplyData(copy, true);
  return typeof reply === "string" ? reply : deepFreeze(reply);
}

/**
 * Checks that a value is a `ModelReply` (plain JSON data) and returns it rebuilt from its known fields, or one
 * sentence saying what is wrong. A model that returns garbage is a bug in the model or its adapter,
 * not something the model can repair, so the caller turns the sentence into a `ModelError`.
 */
export function checkReply(value: unknown): ModelReply | string {
  return checkReplyData(value, false);
}

/** `checkReply`; `isJson` says the value is plain JSON data already (a copy), so arguments need no JSON check. */
function checkReplyData(value: unknown, isJson: boolean): ModelReply | string {
  if (!isPlainObject(value)) return `a reply must be an object { content, toolCalls }, got ${kindOf(value)}`;
  if (typeof value.content !== "string") return `reply.content must be a string, got ${kindOf(value.content)}`;
  if (!Array.isArray(value.toolCalls)) {
    return `reply.toolCalls must be an array (empty for a final answer), got ${kindOf(value.toolCalls)}`;
  }
  const toolCalls: ToolCall[] = [];
  for (const [index, call] of value.toolCalls.entries()) {
    const checked = checkCall(call, isJson);
    if (typeof checked === "string") return `reply.toolCalls[${index}]${checked}`;
    toolCalls.push(checked);
  }
  const usage = value.usage === undefined ? undefined : checkUsage(value.usage);
  if (typeof usage === "string") return usage;
  const reasoning = value.reasoning === undefined ? undefined : checkReasoning(value.reasoning);
  if (typeof reasoning === "string") return reasoning;
  const { finishReason } = value;
  if (finishReason !== undefined && !FINISH_REASONS.includes(finishReason as FinishReason)) {
    return `reply.finishReason must be one of ${FINISH_REASONS.join(", ")} (or absent), got ${kindOf(finishReason)}`;
  }
  const metadata =
    value.providerMetadata === undefined
      ? undefined
      : checkProviderMetadata(value.providerMetadata, "reply.providerMetadata");
  if (typeof metadata === "string") return metadata;
  // Set one by one, each only when given, in this order: no spread of an empty object per reply.
  const reply: { -readonly [K in keyof ModelReply]: ModelReply[K] } = { content: value.content, toolCalls };
  if (usage !== undefined) reply.usage = usage;
  if (reasoning !== undefined) reply.reasoning = reasoning;
  if (finishReason !== undefined) reply.finishReason = finishReason as FinishReason;
  if (metadata !== undefined) reply.providerMetadata = metadata;
  return reply;
}

const FINISH_REASONS: readonly FinishReason[] = ["length", "content-filter", "refusal", "other"];

function checkReasoning(parts: unknown): ReasoningPart[] | string {
  if (!Array.isArray(parts)) return `reply.reasoning must be an array of reasoning parts, got ${kindOf(parts)}`;
  const checked: ReasoningPart[] = [];
  for (const [index, part] of parts.entries()) {
    const at = `reply.reasoning[${index}]`;
    if (!isPlainObject(part)) return `${at} must be an object, got ${kindOf(part)}`;
    if (part.type === "reasoning") {
      if (typeof part.text !== "string") return `${at}.text must be a string, got ${kindOf(part.text)}`;
      if (part.signature !== undefined && typeof part.signature !== "string") {
        return `${at}.signature must be a string, got ${kindOf(part.signature)}`;
      }
      const metadata = metadataOf(part, at);
      if (typeof metadata === "string") return metadata;
      const reasoning: Mutable<ReasoningPart & { type: "reasoning" }> = { type: "reasoning", text: part.text };
      if (part.signature !== undefined) reasoning.signature = part.signature;
      if (metadata !== undefined) reasoning.providerMetadata = metadata;
      checked.push(reasoning);
    } else if (part.type === "redacted-reasoning") {
      if (typeof part.data !== "string") return `${at}.data must be a string, got ${kindOf(part.data)}`;
      const metadata = metadataOf(part, at);
      if (typeof metadata === "string") return metadata;
      checked.push(
        metadata === undefined
          ? { type: "redacted-reasoning", data: part.data }
          : { type: "redacted-reasoning", data: part.data, providerMetadata: metadata },
      );
    } else {
      return `${at}.type must be 'reasoning' or 'redacted-reasoning', got ${kindOf(part.type)}`;
    }
  }
  return checked;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A part's or call's `providerMetadata`, checked; undefined when it has none. */
function metadataOf(value: Record<string, unknown>, at: string): ReturnType<typeof checkProviderMetadata> | undefined {
  return value.providerMetadata === undefined
    ? undefined
    : checkProviderMetadata(value.providerMetadata, `${at}.providerMetadata`);
}

function checkCall(call: unknown, isJson: boolean): ToolCall | string {
  if (!isPlainObject(call)) return ` must be an object { id, name, args }, got ${kindOf(call)}`;
  const { id, name, args, rawArgs } = call;
  if (typeof id !== "string") return `.id must be a string, got ${kindOf(id)}`;
  if (typeof name !== "string") return `.name must be a string, got ${kindOf(name)}`;
  if (!isPlainObject(args)) return `.args must be an object, got ${kindOf(args)}`;
  if (rawArgs !== undefined && typeof rawArgs !== "string") return `.rawArgs must be a string, got ${kindOf(rawArgs)}`;
  if (nestsDeeper(args, MAX_ARGS_DEPTH)) return `.args nest deeper than ${MAX_ARGS_DEPTH} levels`;
  if (!isJson) {
    try {
      JSON.stringify(args);
    } catch (error) {
      return `.args cannot be encoded as JSON (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  const metadata = metadataOf(call, "");
  if (typeof metadata === "string") return metadata;
  const checked: Mutable<ToolCall> = { id, name, args };
  if (rawArgs !== undefined) checked.rawArgs = rawArgs;
  if (metadata !== undefined) checked.providerMetadata = metadata;
  return checked;
}

function checkUsage(usage: unknown): Usage | string {
  if (!isPlainObject(usage)) return `reply.usage must be an object { inputTokens, outputTokens }, got ${kindOf(usage)}`;
  const { inputTokens, outputTokens, cachedInputTokens, cacheWriteTokens, reasoningTokens } = usage;
  if (!isCount(inputTokens) || !isCount(outputTokens)) {
    return "reply.usage.inputTokens and outputTokens must be whole numbers of tokens, 0 or more";
  }
  if (reasoningTokens !== undefined && !(isCount(reasoningTokens) && reasoningTokens <= outputTokens)) {
    return `reply.usage.reasoningTokens must be a whole number of tokens, 0 or more, within outputTokens (or absent), got ${kindOf(reasoningTokens)}`;
  }
  if (cachedInputTokens === undefined && cacheWriteTokens === undefined) {
    return reasoningTokens === undefined
      ? { inputTokens, outputTokens }
      : { inputTokens, outputTokens, reasoningTokens };
  }
  for (const [name, value] of [
    ["cachedInputTokens", cachedInputTokens],
    ["cacheWriteTokens", cacheWriteTokens],
  ] as const) {
    if (value !== undefined && !isCount(value)) {
      return `reply.usage.${name} must be a whole number of tokens, 0 or more (or absent), got ${kindOf(value)}`;
    }
  }
  const cached = (cachedInputTokens as number | undefined) ?? 0;
  const written = (cacheWriteTokens as number | undefined) ?? 0;
  if (cached + written > inputTokens) {
    return `reply.usage.inputTokens (${inputTokens}) must count the cached (${cached}) and cache-write (${written}) tokens it includes`;
  }
  return {
    inputTokens,
    outputTokens,
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens: cached }),
    ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens: written }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
  };
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value).slice(0, 40)}`.trimEnd();
}

/** Whether objects and arrays nest deeper than `limit` levels in `value`; walks without recursion, so any depth is safe. */
function nestsDeeper(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== "object" || node === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(node))
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
