import { isErrorMessage, type Message, type ReasoningPart } from "@agentloop/core/adapter";
import type { ContentBlockParam } from "@anthropic-ai/sdk/resources/messages";

type AssistantMessage = Extract<Message, { role: "assistant" }>;

/**
 * The blocks of one assistant turn, in the order the API wants them back: the reply's thinking
 * and redacted-thinking blocks first, unchanged and in their order; then its text, left out when
 * blank (the API refuses empty text blocks); then one `tool_use` block per call. Reasoning without
 * a signature came from another provider and is not a thinking block the API would accept, so it
 * stays out. The list is empty for a reply with nothing to send back.
 */
export function assistantBlocks(message: AssistantMessage): ContentBlockParam[] {
  return [
    ...(message.reasoning ?? []).flatMap(toThinkingBlock),
    ...(message.content.trim() === "" ? [] : [{ type: "text" as const, text: message.content }]),
    ...message.toolCalls.map((call) => ({ type: "tool_use" as const, id: call.id, name: call.name, input: call.args })),
  ];
}

function toThinkingBlock(part: ReasoningPart): ContentBlockParam[] {
  if (part.type === "redacted-reasoning") return [{ type: "redacted_thinking", data: part.data }];
  return part.signature === undefined ? [] : [{ type: "thinking", thinking: part.text, signature: part.signature }];
}

/** Whether a tool message is an error observation (core's `isErrorMessage`): its `isError` flag, or for older traces its text. */
export function isErrorObservation(message: Extract<Message, { role: "tool" }>): boolean {
  return isErrorMessage(message);
}
