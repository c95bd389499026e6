import type { Message, ToolCall } from "./types.js";

type Assistant = Extract<Message, { role: "assistant" }>;
type ToolMessage = Extract<Message, { role: "tool" }>;

/**
 * The messages with every call answered and every answer called: an assistant message keeps the
 * calls answered by the tool messages right after it (matched by id and name, the first answer of
 * each, in call order), and a tool message that answers no call of the assistant message just
 * before it is left out. An assistant message that lost every call loses its reasoning too (the
 * reasoning was for those calls), and an assistant message with no call and no text is left out. A call id used before is
 * dropped as unanswered. So whatever an `inputFilter` kept, no provider is sent a call without its
 * result, a result without its call, or reasoning without the call it led to.
 */
export function pairedCalls(messages: readonly Message[]): Message[] {
  const paired: Message[] = [];
  const used = new Set<string>();
  let at = 0;
  while (at < messages.length) {
    const message = messages[at] as Message;
    at += 1;
    if (message.role === "tool") continue;
    if (message.role !== "assistant" || message.toolCalls.length === 0) {
      // An assistant message with nothing to say would send its reasoning alone, leading to nothing.
      if (message.role !== "assistant" || message.content !== "") paired.push(message);
      continue;
    }
    const answers: ToolMessage[] = [];
    while (at < messages.length && (messages[at] as Message).role === "tool") {
      answers.push(messages[at] as ToolMessage);
      at += 1;
    }
    const kept: { call: ToolCall; answer: ToolMessage }[] = [];
    for (const call of message.toolCalls) {
      const answer = answers.find((each) => each.toolCallId === call.id && each.name === call.name);
      if (answer === undefined || used.has(call.id)) continue;
      used.add(call.id);
      kept.push({ call, answer });
    }
    const reply = withCalls(
      message,
      kept.map(({ call }) => call),
    );
    if (reply === null) continue;
    paired.push(reply);
    for (const { answer } of kept) paired.push(answer);
  }
  return paired;
}

/** The assistant message with only `calls` (itself when it keeps all), or null when nothing of it is left to send. */
function withCalls(message: Assistant, calls: readonly ToolCall[]): Assistant | null {
  if (calls.length === message.toolCalls.length) return message;
  if (calls.length > 0) return { ...message, toolCalls: calls };
  if (message.content === "") return null;
  const { reasoning: _reasoning, ...rest } = message;
  return { ...rest, toolCalls: [] };
}
