import { base64Bytes, type ContentPart, type MessageContent, partUrl } from "@agentloop/core/adapter";
import type { DocumentBlockParam, ImageBlockParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { AnthropicRequestError } from "./errors.js";

type ImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";
const IMAGE_TYPES: readonly string[] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/** Blocks a tool result may hold: text, images and documents. */
export type ToolResultBlock = TextBlockParam | ImageBlockParam | DocumentBlockParam;

/**
 * A user message's or tool result's content as Messages API blocks: text as text blocks, an image
 * as an `image` block (base64, or a URL passed as it is), a PDF as a `document` block (base64 or
 * URL), a plain-text file as a `document` of text, its `filename` as the title. Throws
 * `AnthropicRequestError` for a media type the API does not take.
 */
export function contentBlocks(content: MessageContent): ToolResultBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map(partBlock);
}

function partBlock(part: ContentPart): ToolResultBlock {
  if (part.type === "text") return { type: "text", text: part.text };
  const url = partUrl(part);
  const data = part.data as string;
  if (part.type === "image") {
    if (!IMAGE_TYPES.includes(part.mediaType)) {
      throw new AnthropicRequestError(`Anthropic takes images of ${IMAGE_TYPES.join(", ")}; got ${part.mediaType}`);
    }
    const source =
      url === null
        ? { type: "base64" as const, media_type: part.mediaType as ImageMediaType, data }
        : { type: "url" as const, url: url.href };
    return { type: "image", source };
  }
  const title = part.filename === undefined ? {} : { title: part.filename };
  if (part.mediaType === "application/pdf") {
    const source =
      url === null
        ? { type: "base64" as const, media_type: "application/pdf" as const, data }
        : { type: "url" as const, url: url.href };
    return { type: "document", source, ...title };
  }
  if (part.mediaType.startsWith("text/") && url === null) {
    const text = new TextDecoder().decode(base64Bytes(data));
    return { type: "document", source: { type: "text", media_type: "text/plain", data: text }, ...title };
  }
  throw new AnthropicRequestError(
    `Anthropic takes files as PDF (by data or URL) or plain text (by data); got ${part.mediaType}${url === null ? "" : " by URL"}`,
  );
}
