import type { ModelDelta } from "@agentloop/core/adapter";
import { AiSdkStreamError } from "./errors.js";
import type { ReplyParts } from "./from-result.js";
import type { ResultContent, StreamPart } from "./spec.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type TextLike = Mutable<Extract<ResultContent, { type: "text" | "reasoning" }>>;

/**
 * Reads a provider's stream of parts into the parts of a reply, as `doGenerate` would have
 * returned them, telling `onDelta` each piece of text, reasoning and call input as it arrives.
 * Text and reasoning are joined by their block id, with the metadata each of their start, delta
 * and end parts carried (a Gemini signature comes on a delta, an Anthropic one at the end); calls
 * the harness runs are numbered in the order their input starts (a call that arrives whole is
 * streamed whole). An `error` part, or a stream that ends before its `finish` part, rejects with
 * `AiSdkStreamError`; a failure of the stream itself (an abort) rejects as it came.
 */
export async function readStream(
  stream: ReadableStream<StreamPart>,
  onDelta: (delta: ModelDelta) => void,
): Promise<ReplyParts> {
  const content: ResultContent[] = [];
  const blocks = new Map<string, TextLike>();
  const calls = new Map<string, { index: number; streamed: string }>();
  let finish: Extract<StreamPart, { type: "finish" }> | undefined;
  const block = (kind: "text" | "reasoning", id: string): TextLike => {
    const key = `${kind}:${id}`;
    const found = blocks.get(key);
    if (found !== undefined) return found;
    const made: TextLike = { type: kind, text: "" };
    blocks.set(key, made);
    content.push(made);
    return made;
  };
  const addMetadata = (target: TextLike, metadata: TextLike["providerMetadata"]) => {
    if (metadata === undefined) return;
    const merged: Record<string, Record<string, unknown>> = { ...target.providerMetadata };
    for (const [provider, entries] of Object.entries(metadata)) merged[provider] = { ...merged[provider], ...entries };
    target.providerMetadata = merged as TextLike["providerMetadata"];
  };
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const part = next.value;
      switch (part.type) {
        case "text-start":
        case "reasoning-start":
        case "text-end":
        case "reasoning-end":
          addMetadata(block(part.type.startsWith("text") ? "text" : "reasoning", part.id), part.providerMetadata);
          break;
        case "text-delta":
        case "reasoning-delta": {
          const kind = part.type === "text-delta" ? "text" : "reasoning";
          const target = block(kind, part.id);
          target.text += part.delta;
          addMetadata(target, part.providerMetadata);
          if (part.delta !== "")
            onDelta({ type: kind === "text" ? "text-delta" : "reasoning-delta", text: part.delta });
          break;
        }
        case "tool-input-start":
          if (part.providerExecuted !== true && !calls.has(part.id)) {
            const index = calls.size;
            calls.set(part.id, { index, streamed: "" });
            onDelta({ type: "tool-call-delta", index, id: part.id, name: part.toolName, argsText: "" });
          }
          break;
        case "tool-input-delta": {
          const call = calls.get(part.id);
          if (call !== undefined && part.delta !== "") {
            call.streamed += part.delta;
            onDelta({ type: "tool-call-delta", index: call.index, argsText: part.delta });
          }
          break;
        }
        case "tool-call": {
          content.push(part);
          if (part.providerExecuted === true) break;
          const call = calls.get(part.toolCallId);
          if (call === undefined) {
            const index = calls.size;
            calls.set(part.toolCallId, { index, streamed: part.input });
            onDelta({ type: "tool-call-delta", index, id: part.toolCallId, name: part.toolName, argsText: part.input });
          } else if (part.input.startsWith(call.streamed) && part.input.length > call.streamed.length) {
            // The rest of an input the provider sent whole at the end, so that the deltas add up to the call.
            onDelta({ type: "tool-call-delta", index: call.index, argsText: part.input.slice(call.streamed.length) });
            call.streamed = part.input;
          }
          break;
        }
        case "tool-result":
        case "file":
        case "source":
        case "tool-approval-request":
          content.push(part as ResultContent);
          break;
        case "finish":
          finish = part;
          break;
        case "error":
          throw new AiSdkStreamError(`the provider's stream failed: ${describe(part.error)}`, { cause: part.error });
        default:
          // stream-start (warnings), response-metadata, raw chunks, pings and custom parts.
          break;
      }
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  if (finish === undefined) throw new AiSdkStreamError("the provider's stream ended before its finish part");
  return {
    content,
    finishReason: finish.finishReason,
    usage: finish.usage,
    providerMetadata: finish.providerMetadata,
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
