import {
  assignCallIds,
  type FinishReason,
  isCount,
  type JSONValue,
  type Message,
  type ModelReply,
  type ProviderMetadata,
  type ReasoningPart,
  type ToolCall,
  type Usage,
} from "@agentloop/core/adapter";
import {
  BRIDGE_KEY,
  type BridgeRecord,
  type ExecutedPart,
  mergeMetadata,
  plainJson,
  plainMetadata,
} from "./bridge-metadata.js";
import type { ResultContent, ResultFinishReason, ResultUsage } from "./spec.js";

/** What a reply is made of, collected from a result's content or from a stream's parts. */
export interface ReplyParts {
  readonly content: readonly ResultContent[];
  readonly finishReason: ResultFinishReason | string | undefined;
  readonly usage: ResultUsage | undefined;
  readonly providerMetadata: unknown;
}

/**
 * Maps what a provider model returned to a `ModelReply`: its text parts joined as `content`; each
 * reasoning part a reasoning part with its `providerMetadata`; each tool call the harness is to run
 * a call (its input parsed, kept as `rawArgs` when it is not a JSON object; missing or repeated ids
 * get stable positional ones) with its `providerMetadata`; the tools the provider ran itself (call
 * and result) kept, with the text part's metadata, under the reply's `providerMetadata.agentloop`,
 * never as calls, so that nothing runs them again; the result's own metadata as the rest of the
 * reply's `providerMetadata`; the finish reason and the usage as billed (`toUsage`).
 */
export function toReply(parts: ReplyParts, messages: readonly Message[]): ModelReply {
  let text = "";
  let textAfter: number | undefined;
  let textMetadata: ProviderMetadata | undefined;
  const reasoning: ReasoningPart[] = [];
  const calls: { id: string; name: string; input: string; metadata: ProviderMetadata | undefined }[] = [];
  const executed: ExecutedPart[] = [];
  for (const part of parts.content) {
    switch (part.type) {
      case "text":
        if (textAfter === undefined && part.text !== "") textAfter = executed.length;
        text += part.text;
        textMetadata = mergeMetadata(textMetadata, plainMetadata(part.providerMetadata));
        break;
      case "reasoning": {
        const metadata = plainMetadata(part.providerMetadata);
        reasoning.push(
          metadata === undefined
            ? { type: "reasoning", text: part.text }
            : { type: "reasoning", text: part.text, providerMetadata: metadata },
        );
        break;
      }
      case "tool-call":
        if (part.providerExecuted === true) {
          executed.push(
            withMetadata(
              {
                type: "tool-call",
                toolCallId: part.toolCallId,
                toolName: part.toolName,
                input: parsedOrText(part.input),
              },
              part.providerMetadata,
            ),
          );
        } else {
          calls.push({
            id: part.toolCallId,
            name: part.toolName,
            input: part.input,
            metadata: plainMetadata(part.providerMetadata),
          });
        }
        break;
      case "tool-result":
        executed.push(
          withMetadata(
            {
              type: "tool-result",
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              result: plainJson(part.result),
              ...(part.isError === true ? { isError: true } : {}),
            },
            part.providerMetadata,
          ),
        );
        break;
      default:
        // Sources, files the model made, approval requests and custom parts are not part of a reply.
        break;
    }
  }
  const ids = assignCallIds(
    calls.map((call) => (call.id === "" ? undefined : call.id)),
    messages,
  );
  const toolCalls = calls.map((call, index): ToolCall => {
    const parsed = toArguments(call.input);
    const id = ids[index] ?? `call_${index}`;
    const made: ToolCall = { id, name: call.name, ...parsed };
    return call.metadata === undefined ? made : { ...made, providerMetadata: call.metadata };
  });
  const record: BridgeRecord = {
    ...(executed.length === 0 ? {} : { providerExecuted: executed }),
    ...(textAfter === undefined || textAfter === 0 ? {} : { textAfter }),
    ...(textMetadata === undefined ? {} : { text: textMetadata }),
  };
  const ownMetadata = plainMetadata(parts.providerMetadata);
  const providerMetadata =
    Object.keys(record).length === 0
      ? ownMetadata
      : { ...ownMetadata, [BRIDGE_KEY]: record as unknown as ProviderMetadata[string] };
  const usage = parts.usage === undefined ? undefined : toUsage(parts.usage);
  const finishReason = toFinishReason(parts.finishReason);
  const reply: { -readonly [K in keyof ModelReply]: ModelReply[K] } = { content: text, toolCalls };
  if (usage !== undefined) reply.usage = usage;
  if (reasoning.length > 0) reply.reasoning = reasoning;
  if (finishReason !== undefined) reply.finishReason = finishReason;
  if (providerMetadata !== undefined) reply.providerMetadata = providerMetadata;
  return reply;
}

function withMetadata<T extends ExecutedPart>(part: T, metadata: unknown): T {
  const plain = plainMetadata(metadata);
  return plain === undefined ? part : { ...part, providerMetadata: plain };
}

function parsedOrText(input: string): JSONValue {
  try {
    return plainJson(JSON.parse(input));
  } catch {
    return input;
  }
}

/** A call's input as arguments: a JSON object as it is, anything else kept as `rawArgs` (the harness tells the model). */
function toArguments(input: string): { args: Record<string, unknown>; rawArgs?: string } {
  if (input.trim() === "") return { args: {} };
  try {
    const parsed: unknown = JSON.parse(input);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      return { args: parsed as Record<string, unknown> };
    }
  } catch {
    // Not JSON: kept as it came.
  }
  return { args: {}, rawArgs: input };
}

/**
 * The AI SDK's finish reason as the run's: `stop` and `tool-calls` are the ordinary ends (none
 * set), `length` and `content-filter` map as named, any other (`error`, `interrupted`, `other`,
 * unknown) is `other`. A bare string (an older provider) is read the same way.
 */
export function toFinishReason(reason: ResultFinishReason | string | undefined): FinishReason | undefined {
  const unified = typeof reason === "string" ? reason : reason?.unified;
  if (unified === undefined || unified === "stop" || unified === "tool-calls") return undefined;
  if (unified === "length" || unified === "content-filter") return unified;
  return "other";
}

/**
 * The AI SDK's nested usage as billed: `inputTokens` is the prompt's total (or its parts added up:
 * not cached, read from the cache, written to it), `outputTokens` the reply's (or text plus
 * reasoning); `cachedInputTokens` the cache reads and `cacheWriteTokens` the cache writes, each
 * when there were any; `reasoningTokens` when the provider counted any. No usage when the provider
 * gave no token counts.
 */
export function toUsage(usage: ResultUsage): Usage | undefined {
  const input = usage.inputTokens as Partial<ResultUsage["inputTokens"]> | number | undefined;
  const output = usage.outputTokens as Partial<ResultUsage["outputTokens"]> | number | undefined;
  // A flat count (specification v2's shape, or a provider that reports it so) is read as the total.
  const inputs = typeof input === "number" ? { total: input } : (input ?? {});
  const outputs = typeof output === "number" ? { total: output } : (output ?? {});
  const read = countOf(inputs.cacheRead);
  const written = countOf(inputs.cacheWrite);
  const inputTotal = isCount(inputs.total)
    ? inputs.total
    : inputs.noCache === undefined && read === 0 && written === 0
      ? undefined
      : countOf(inputs.noCache) + read + written;
  const reasoning = countOf(outputs.reasoning);
  const outputTotal = isCount(outputs.total)
    ? outputs.total
    : outputs.text === undefined && outputs.reasoning === undefined
      ? undefined
      : countOf(outputs.text) + reasoning;
  if (inputTotal === undefined || outputTotal === undefined) return undefined;
  return {
    inputTokens: Math.max(inputTotal, read + written),
    outputTokens: Math.max(outputTotal, reasoning),
    ...(read > 0 ? { cachedInputTokens: read } : {}),
    ...(written > 0 ? { cacheWriteTokens: written } : {}),
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

function countOf(value: unknown): number {
  return isCount(value) ? value : 0;
}
