import { type ContentPart, contentText, type MessageContent, partUrl } from "@agentloop/core/adapter";
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartText,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { OpenAIRequestError } from "./errors.js";

/**
 * A user message's content in Chat Completions' form: text as it is; parts as `text`,
 * `image_url` (a URL passed as it is, bytes as a `data:` URL) and `file` parts (bytes as
 * `file_data`, a `data:` URL, with the `filename`). Chat Completions takes no file by URL: such a
 * part throws `OpenAIRequestError`.
 */
export function userContent(content: MessageContent): string | ChatCompletionContentPart[] {
  return typeof content === "string" ? content : content.map(contentPart);
}

function contentPart(part: ContentPart): ChatCompletionContentPart {
  if (part.type === "text") return { type: "text", text: part.text };
  const url = partUrl(part);
  if (part.type === "image") return { type: "image_url", image_url: { url: url?.href ?? dataUrl(part) } };
  if (url !== null) {
    throw new OpenAIRequestError(
      `Chat Completions takes a file as its data, not a URL (${url.href}): give the file's bytes`,
    );
  }
  return {
    type: "file",
    file: { file_data: dataUrl(part), ...(part.filename === undefined ? {} : { filename: part.filename }) },
  };
}

function dataUrl(part: Extract<ContentPart, { type: "image" | "file" }>): string {
  return `data:${part.mediaType};base64,${part.data as string}`;
}

/**
 * A tool message's content: text as it is; of parts, the text parts (a tool message holds text
 * only), with each image or file noted where it was (`[image image/png]`, see `contentText`). The
 * media themselves follow in `toolMedia`.
 */
export function toolContent(content: MessageContent): string | ChatCompletionContentPartText[] {
  if (typeof content === "string") return content;
  return [{ type: "text", text: contentText(content) }];
}

/**
 * The images and files of a run of tool messages, as the one user message that follows them (a
 * tool message cannot hold them in Chat Completions), each introduced by the call it came from;
 * null when they hold none.
 */
export function toolMedia(
  tools: readonly { readonly toolCallId: string; readonly content: MessageContent }[],
): ChatCompletionMessageParam | null {
  const parts: ChatCompletionContentPart[] = [];
  for (const tool of tools) {
    if (typeof tool.content === "string") continue;
    const media = tool.content.filter((part) => part.type !== "text");
    if (media.length === 0) continue;
    parts.push({ type: "text", text: `The result of call ${tool.toolCallId}:` }, ...media.map(contentPart));
  }
  return parts.length === 0 ? null : { role: "user", content: parts };
}
