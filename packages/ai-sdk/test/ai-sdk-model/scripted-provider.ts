import type { ModelReply } from "@agentloop/core";
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from "ai/test";

/** A reply in the AI SDK's terms: reasoning, text, then the calls, as a provider returns them. */
export function contentOf(reply: ModelReply): LanguageModelV4Content[] {
  return [
    ...(reply.reasoning ?? []).flatMap((part) =>
      part.type === "reasoning" ? [{ type: "reasoning" as const, text: part.text }] : [],
    ),
    ...(reply.content === "" ? [] : [{ type: "text" as const, text: reply.content }]),
    ...reply.toolCalls.map((call) => ({
      type: "tool-call" as const,
      toolCallId: call.id,
      toolName: call.name,
      input: call.rawArgs ?? JSON.stringify(call.args),
    })),
  ];
}

export function usageOf(reply: ModelReply): LanguageModelV4Usage {
  const usage = reply.usage;
  const read = usage?.cachedInputTokens;
  const written = usage?.cacheWriteTokens;
  return {
    inputTokens: {
      total: usage?.inputTokens,
      noCache: usage === undefined ? undefined : usage.inputTokens - (read ?? 0) - (written ?? 0),
      cacheRead: read,
      cacheWrite: written,
    },
    outputTokens: { total: usage?.outputTokens, text: usage?.outputTokens, reasoning: undefined },
  };
}

export function finishOf(reply: ModelReply): LanguageModelV4FinishReason {
  const reason = reply.finishReason;
  if (reason === undefined) return { unified: reply.toolCalls.length > 0 ? "tool-calls" : "stop", raw: undefined };
  return { unified: reason === "refusal" ? "other" : reason, raw: reason };
}

/** The stream a provider sends for `reply`: reasoning and text in pieces, each call's input in two pieces, then finish. */
export function streamPartsOf(reply: ModelReply): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  for (const [index, part] of (reply.reasoning ?? []).entries()) {
    if (part.type !== "reasoning") continue;
    const id = `r${index}`;
    parts.push({ type: "reasoning-start", id });
    for (const delta of halves(part.text)) parts.push({ type: "reasoning-delta", id, delta });
    parts.push({ type: "reasoning-end", id });
  }
  if (reply.content !== "") {
    parts.push({ type: "text-start", id: "t" });
    for (const delta of halves(reply.content)) parts.push({ type: "text-delta", id: "t", delta });
    parts.push({ type: "text-end", id: "t" });
  }
  for (const call of reply.toolCalls) {
    const input = call.rawArgs ?? JSON.stringify(call.args);
    parts.push({ type: "tool-input-start", id: call.id, toolName: call.name });
    for (const delta of halves(input)) parts.push({ type: "tool-input-delta", id: call.id, delta });
    parts.push({ type: "tool-input-end", id: call.id });
    parts.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input });
  }
  parts.push({ type: "finish", usage: usageOf(reply), finishReason: finishOf(reply) });
  return parts;
}

function halves(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)].filter((piece) => piece !== "");
}

/**
 * Where a request's prompt fails to carry the replies before it: each assistant message must hold
 * the reply's reasoning, text and calls, and every call must be answered by a tool result.
 */
export function promptViolations(
  prompt: LanguageModelV4CallOptions["prompt"] | LanguageModelV3CallOptions["prompt"],
  earlier: readonly ModelReply[],
): string[] {
  const problems: string[] = [];
  const assistants = prompt.filter((message) => message.role === "assistant");
  for (const [index, reply] of earlier.entries()) {
    const message = assistants[index];
    if (message === undefined) {
      problems.push(`reply ${index} is missing from the prompt`);
      continue;
    }
    const sent = message.content as readonly { type: string; text?: string; toolCallId?: string }[];
    const reasoning = sent.filter((part) => part.type === "reasoning").map((part) => part.text);
    const expected = (reply.reasoning ?? []).flatMap((part) => (part.type === "reasoning" ? [part.text] : []));
    if (JSON.stringify(reasoning) !== JSON.stringify(expected))
      problems.push(`reply ${index}'s reasoning did not go back`);
    const calls = sent.filter((part) => part.type === "tool-call").map((part) => part.toolCallId);
    if (JSON.stringify(calls) !== JSON.stringify(reply.toolCalls.map((call) => call.id))) {
      problems.push(`reply ${index}'s calls did not go back`);
    }
  }
  const answered = new Set(
    prompt.flatMap((message) =>
      message.role === "tool"
        ? message.content.flatMap((part) => (part.type === "tool-result" ? [part.toolCallId] : []))
        : [],
    ),
  );
  for (const reply of earlier) {
    for (const call of reply.toolCalls) if (!answered.has(call.id)) problems.push(`call ${call.id} has no tool result`);
  }
  return problems;
}

/** A `MockLanguageModelV4` (or V3) that answers `replies` in turn, streamed or not, and checks each prompt. */
export function scriptedProvider(replies: readonly ModelReply[], version: "v3" | "v4" = "v4") {
  const violations: string[] = [];
  let next = 0;
  const take = (prompt: LanguageModelV4CallOptions["prompt"] | LanguageModelV3CallOptions["prompt"]) => {
    violations.push(...promptViolations(prompt, replies.slice(0, next)));
    const reply = replies[next];
    next += 1;
    if (reply === undefined) throw new Error("the scripted provider has no more replies");
    return reply;
  };
  const generate = (options: {
    prompt: LanguageModelV4CallOptions["prompt"] | LanguageModelV3CallOptions["prompt"];
  }) => {
    const reply = take(options.prompt);
    return Promise.resolve({
      content: contentOf(reply),
      finishReason: finishOf(reply),
      usage: usageOf(reply),
      warnings: [],
    });
  };
  const stream = (options: { prompt: LanguageModelV4CallOptions["prompt"] | LanguageModelV3CallOptions["prompt"] }) =>
    Promise.resolve({ stream: convertArrayToReadableStream(streamPartsOf(take(options.prompt))) });
  const model =
    version === "v4"
      ? new MockLanguageModelV4({ provider: "scripted", modelId: "weather", doGenerate: generate, doStream: stream })
      : new MockLanguageModelV3({
          provider: "scripted",
          modelId: "weather",
          doGenerate: generate as unknown as (
            options: LanguageModelV3CallOptions,
          ) => Promise<LanguageModelV3GenerateResult>,
          doStream: stream as unknown as (
            options: LanguageModelV3CallOptions,
          ) => Promise<{ stream: ReadableStream<LanguageModelV3StreamPart> }>,
        });
  return { model, violations };
}
