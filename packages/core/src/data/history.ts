import { checkReply } from "./check-reply.js";
import { type MessageContent, normalizeContent } from "./content-part.js";
import { isPlainObject } from "./is-plain-object.js";
import type { Message } from "./types.js";

/**
 * Checks a conversation carried over from elsewhere (the messages between the system message and
 * the task) and returns it as plain data, or one sentence saying what is wrong: only user,
 * assistant and tool messages; every call of an assistant message answered right after it by one
 * tool message, in call order, with the call's id and name; no call id used twice.
 */
export function checkHistory(value: unknown): Message[] | string {
  if (!Array.isArray(value)) return "history must be an array of messages";
  const messages: Message[] = [];
  const ids = new Set<string>();
  let owed: { id: string; name: string }[] = [];
  for (const [index, raw] of value.entries()) {
    const at = `history[${index}]`;
    const message = checkMessage(raw, at);
    if (typeof message === "string") return message;
    if (message.role === "tool") {
      const call = owed.shift();
      if (call === undefined) return `${at} is a tool message that answers no call of the assistant message before it`;
      if (call.id !== message.toolCallId || call.name !== message.name) {
        return `${at} must answer call '${call.id}' (${call.name}), the next call of the assistant message before it`;
      }
    } else if (owed.length > 0) {
      return `${at} comes before call '${owed[0]?.id}' has its tool message`;
    }
    if (message.role === "assistant") {
      for (const call of message.toolCalls) {
        if (ids.has(call.id)) return `${at} uses the call id '${call.id}' a second time`;
        ids.add(call.id);
      }
      owed = message.toolCalls.map(({ id, name }) => ({ id, name }));
    }
    messages.push(message);
  }
  if (owed.length > 0) return `history ends before call '${owed[0]?.id}' has its tool message`;
  return messages;
}

function checkMessage(raw: unknown, at: string): Message | string {
  if (!isPlainObject(raw)) return `${at} must be a message object`;
  switch (raw.role) {
    case "user":
      return contentOf(raw.content, `${at}.content`, (content) => ({ role: "user", content }));
    case "assistant": {
      const { role: _role, ...reply } = raw;
      const checked = checkReply({ ...reply, toolCalls: reply.toolCalls });
      if (typeof checked === "string") return `${at}: ${checked.replace(/^reply/, "message")}`;
      const { usage: _usage, ...message } = checked;
      return { role: "assistant", ...message };
    }
    case "tool": {
      const { toolCallId, name, content, isError } = raw;
      if (
        typeof toolCallId !== "string" ||
        typeof name !== "string" ||
        (typeof content !== "string" && !Array.isArray(content))
      ) {
        return `${at} must have toolCallId, name and content strings`;
      }
      if (isError !== undefined && typeof isError !== "boolean") return `${at}.isError must be a boolean`;
      return contentOf(content, `${at}.content`, (checked) => ({
        role: "tool",
        toolCallId,
        name,
        content: checked,
        ...(isError === undefined ? {} : { isError }),
      }));
    }
    case "system":
      return `${at} is a system message: give the system prompt as the 'system' option`;
    default:
      return `${at}.role must be 'user', 'assistant' or 'tool'`;
  }
}

/** The message `make` builds from the content normalized, or the one-line reason the content is refused. */
function contentOf(raw: unknown, at: string, make: (content: MessageContent) => Message): Message | string {
  if (typeof raw === "string") return make(raw);
  if (!Array.isArray(raw)) return `${at} must be a string or a list of content parts`;
  try {
    return make(normalizeContent(raw, at));
  } catch (error) {
    return (error as Error).message;
  }
}
