import { type ContentPart, contentParts } from "@agentloop/core";
import type { CallToolResult } from "@modelcontextprotocol/client";

/** A tool result the server marked `isError`: its text, as the observation's reason. */
export class McpToolError extends Error {
  override readonly name = "McpToolError";
}

type ContentBlock = CallToolResult["content"][number];

/**
 * What an MCP tool result becomes for the model: `structuredContent` when the server gave it
 * (media in it described in a line each); else, when its content holds an image or an embedded
 * resource with a blob, the content as parts (`contentParts`: text, each image as an image part,
 * each blob as a file part, the rest described in a line each); else the text of its content,
 * audio and links described. A result with `isError` throws `McpToolError` with its text, which
 * the registry turns into `ERROR:`.
 */
export function resultValue(result: CallToolResult): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    throw new McpToolError(textOf(content) || "the server reported an error and gave no text");
  }
  if (result.structuredContent !== undefined) return withoutMedia(result.structuredContent);
  if (content.some(isPart)) return contentParts(content.map(partOf));
  return textOf(content);
}

/** Whether a block becomes a part of its own: an image, or an embedded resource with a blob. */
function isPart(block: ContentBlock): boolean {
  if (block.type === "image") return block.mimeType.startsWith("image/");
  return block.type === "resource" && "blob" in block.resource && typeof block.resource.blob === "string";
}

function partOf(block: ContentBlock): ContentPart {
  if (!isPart(block)) return { type: "text", text: describe(block) };
  if (block.type === "image") return { type: "image", mediaType: block.mimeType, data: block.data };
  const resource = (block as Extract<ContentBlock, { type: "resource" }>).resource as {
    uri: string;
    mimeType?: string;
    blob: string;
  };
  const filename = resource.uri.split(/[/\\]/).pop() || resource.uri;
  return { type: "file", mediaType: resource.mimeType ?? "application/octet-stream", data: resource.blob, filename };
}

/**
 * `value` with every media content block in it (an image or audio block, or a resource with a
 * blob) replaced by its one-line description, as in `content`: base64 means nothing to a model and
 * would fill its context. Copies only what changes.
 */
function withoutMedia(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (isMedia(value)) return describe(value);
  const entries = Object.entries(value);
  let changed = false;
  const kept = entries.map(([key, item]): [string, unknown] => {
    const next = withoutMedia(item);
    changed ||= next !== item;
    return [key, next];
  });
  if (!changed) return value;
  return Array.isArray(value) ? kept.map(([, item]) => item) : Object.fromEntries(kept);
}

function isMedia(value: object): value is ContentBlock {
  const block = value as Record<string, unknown>;
  if (block.type === "image" || block.type === "audio") {
    return typeof block.data === "string" && typeof block.mimeType === "string";
  }
  const resource = block.resource as Record<string, unknown> | null | undefined;
  return block.type === "resource" && typeof resource === "object" && typeof resource?.blob === "string";
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map(describe).join("\n\n");
}

function describe(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[resource ${block.uri}${block.name ? ` (${block.name})` : ""}]`;
    case "resource": {
      const { resource } = block;
      if ("text" in resource && typeof resource.text === "string") return resource.text;
      return `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ""}]`;
    }
    default:
      return JSON.stringify(block);
  }
}

/** How many bytes base64 `data` decodes to, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
