import type { RunAgentInput } from "@ag-ui/core";
import type { ContentPart, MessageContent } from "@agentloop/core";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Why the input's user message cannot be run, in one line. */
export class UserContentError extends Error {
  override readonly name = "UserContentError";
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;

/**
 * What the model is shown of the input's last message, the user's: its text when it is text, else
 * its parts in order: text as text, an `image` as an image part, a `document`, `audio` or `video`
 * as a file part, from a `data` source (base64 with its `mimeType`) or a `url` source (with its
 * `mimeType`; passed on, never fetched). `null` when the last message is not the user's or holds
 * nothing. Throws `UserContentError` for a part the agent cannot take (a provider's `file` source,
 * a source without a media type, data that is not base64): nothing a client sent is dropped unsaid.
 */
export function lastUserContent(input: RunAgentInput): MessageContent | null {
  const last = input.messages.at(-1);
  if (last?.role !== "user") return null;
  const content: unknown = last.content;
  if (typeof content === "string") return content.trim() === "" ? null : content;
  if (!Array.isArray(content)) return null;
  const parts = content.map((part: unknown, index) => partOf(part, index));
  const text = parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  if (parts.every((part) => part.type === "text")) return text.trim() === "" ? null : text;
  return parts.filter((part) => part.type !== "text" || part.text !== "");
}

function partOf(part: unknown, index: number): ContentPart {
  if (!isObject(part)) throw new UserContentError(`the user message's part ${index} is not an object`);
  const { type } = part;
  if (type === "text" && typeof part.text === "string") return { type: "text", text: part.text };
  if (type !== "image" && type !== "document" && type !== "audio" && type !== "video") {
    throw new UserContentError(
      `the user message's part ${index} has the type ${JSON.stringify(type) ?? "undefined"}, which the agent cannot take: send text, image, document, audio or video`,
    );
  }
  const where = `the user message's part ${index} (${type})`;
  const source = part.source;
  if (!isObject(source) || typeof source.value !== "string") throw new UserContentError(`${where} needs a source`);
  const { mimeType, value } = source;
  if (source.type === "file") {
    throw new UserContentError(
      `${where} is a provider's file '${value}', which the agent cannot pass on: send its data or a URL`,
    );
  }
  if (typeof mimeType !== "string" || mimeType === "")
    throw new UserContentError(`${where} needs the source's mimeType`);
  let data: string;
  if (source.type === "data") {
    const compact = value.replace(/\s+/g, "");
    if (!BASE64.test(compact) || compact.length % 4 === 1)
      throw new UserContentError(`${where} has data that is not base64`);
    data = compact;
  } else if (source.type === "url") {
    if (!URL.canParse(value)) throw new UserContentError(`${where} has a url that is not a URL`);
    data = value;
  } else {
    throw new UserContentError(
      `${where} has a source of the unknown type ${JSON.stringify(source.type) ?? "undefined"}`,
    );
  }
  if (type === "image" && mimeType.startsWith("image/")) return { type: "image", mediaType: mimeType, data };
  return { type: "file", mediaType: mimeType, data };
}
