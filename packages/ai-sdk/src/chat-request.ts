import type { ContentPart, Decision, MessageContent } from "@agentloop/core";
import { conversationIdProblem } from "@agentloop/core/serve";

/**
 * What a chat request asks for: a new message for the conversation, or decisions and answers for
 * the calls it waits on. `outputs` holds every tool part of the message in `output-available` by
 * call id: the answers given with `addToolOutput` are among them, beside the results of tools that
 * ran on the server; the handler takes those for the questions the run waits on.
 */
export type ChatTurn =
  | {
      readonly kind: "message";
      readonly chatId: string;
      /** The text of the message's text parts, joined. */
      readonly text: string;
      /** What the model is shown: the text alone, or with the message's files as image and file parts, in order. */
      readonly content: MessageContent;
      /** The page asks for the last answer again (`regenerate`, trigger `regenerate-message`). */
      readonly regenerate: boolean;
    }
  | {
      readonly kind: "decisions";
      readonly chatId: string;
      readonly messageId: string;
      readonly decisions: Readonly<Record<string, Decision>>;
      readonly outputs: Readonly<Record<string, unknown>>;
    };

/** A request body that is not what `DefaultChatTransport` sends; `message` says what is wrong. */
export class ChatRequestError extends Error {
  override readonly name = "ChatRequestError";
}

type Json = Record<string, unknown>;

/** Why `id` cannot name a chat's run, in one line, or `null` when it can. */
export function chatIdProblem(id: string): string | null {
  return conversationIdProblem(id, "chat id");
}

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Reads the turn from the body `DefaultChatTransport` POSTs (`{ id, messages, trigger, messageId }`).
 * Only the last message counts: the text and files of a user message, or the decisions of the tool parts in
 * `approval-responded` of an assistant message and the outputs of its parts in `output-available`
 * (a question answered with `addToolOutput` is one); what the client holds of earlier turns is not
 * read, as the store keeps the conversation. Throws `ChatRequestError` for anything else.
 */
export function readChatTurn(body: unknown): ChatTurn {
  if (!isObject(body)) throw new ChatRequestError("the body must be a JSON object with `id` and `messages`");
  const { id, messages } = body;
  if (typeof id !== "string" || id === "") throw new ChatRequestError("`id` must be a non-empty string: the chat's id");
  const problem = chatIdProblem(id);
  if (problem !== null) throw new ChatRequestError(problem);
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ChatRequestError("`messages` must be a non-empty array of UI messages");
  }
  const last: unknown = messages.at(-1);
  if (!isObject(last) || !Array.isArray(last.parts)) {
    throw new ChatRequestError("the last message must be a UI message with `role` and `parts`");
  }
  const parts = last.parts.filter(isObject);
  if (last.role === "user") {
    return { kind: "message", chatId: id, ...userContent(parts), regenerate: body.trigger === "regenerate-message" };
  }
  if (last.role === "assistant") {
    const decisions = decisionsOf(parts);
    const outputs = outputsOf(parts);
    if (Object.keys(decisions).length === 0 && Object.keys(outputs).length === 0) {
      throw new ChatRequestError(
        "the last message is the assistant's but answers no approval or question (no part in `approval-responded` or `output-available`)",
      );
    }
    const messageId = typeof last.id === "string" ? last.id : "";
    return { kind: "decisions", chatId: id, messageId, decisions, outputs };
  }
  throw new ChatRequestError(
    "the last message must be the user's or the assistant's with approval responses or answers",
  );
}

function decisionsOf(parts: readonly Json[]): Record<string, Decision> {
  const decisions: Record<string, Decision> = {};
  for (const part of parts) {
    if (part.state !== "approval-responded" || !isObject(part.approval)) continue;
    const { id, approved, reason } = part.approval;
    if (typeof id !== "string" || typeof approved !== "boolean") {
      throw new ChatRequestError(
        "an approval response needs `approval.id` (a string) and `approval.approved` (a boolean)",
      );
    }
    decisions[id] = typeof reason === "string" ? { approved, reason } : { approved };
  }
  return decisions;
}

function outputsOf(parts: readonly Json[]): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const part of parts) {
    if (part.state !== "output-available" || typeof part.toolCallId !== "string") continue;
    if (part.output !== undefined) outputs[part.toolCallId] = part.output;
  }
  return outputs;
}

/**
 * The content of a user message: its text parts joined as text when there is nothing else; else
 * its parts in order, each text part as text and each file part (what `sendMessage({ files })`
 * sends) as an image part (an `image/*` media type) or a file part, its `url` (a `data:` URL or a
 * link, which is passed on and never fetched) as the data. A part of another type, or a file part
 * without a string `url` and `mediaType`, is refused: nothing the page sent is dropped unsaid.
 */
function userContent(parts: readonly Json[]): { text: string; content: MessageContent } {
  const content: ContentPart[] = [];
  let media = false;
  for (const [index, part] of parts.entries()) {
    if (part.type === "text" && typeof part.text === "string") {
      content.push({ type: "text", text: part.text });
    } else if (part.type === "file") {
      content.push(mediaPart(part, index));
      media = true;
    } else if (part.type !== "step-start") {
      throw new ChatRequestError(
        `the last user message's part ${index} has the type ${JSON.stringify(part.type) ?? "undefined"}, which the agent cannot take: send text and file parts`,
      );
    }
  }
  const text = content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  if (!media) {
    if (text === "") throw new ChatRequestError("the last user message has no text part and no file");
    return { text, content: text };
  }
  return { text, content: content.filter((part) => part.type !== "text" || part.text !== "") };
}

function mediaPart(part: Json, index: number): ContentPart {
  const { url, mediaType, filename } = part;
  if (typeof url !== "string" || typeof mediaType !== "string" || url === "") {
    throw new ChatRequestError(
      `the last user message's part ${index} (file) needs \`url\` (a data: URL or a link) and \`mediaType\``,
    );
  }
  if (!URL.canParse(url)) {
    throw new ChatRequestError(
      `the last user message's part ${index} (file) has a url that is not a URL: ${url.slice(0, 80)}`,
    );
  }
  if (mediaType.startsWith("image/")) return { type: "image", mediaType, data: url };
  return { type: "file", mediaType, data: url, ...(typeof filename === "string" ? { filename } : {}) };
}
