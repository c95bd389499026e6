/**
 * Content parts: a message that is more than text (the task, a continued message, a tool's
 * result) is a list of parts. A part's bytes may be given as a `Uint8Array`, base64 text or a
 * `URL`; the run holds them in one plain-JSON form (see `normalizeContent`), which is what the
 * model is shown, what is logged and what replay rebuilds.
 */

/** One part of a message: text, an image, or a file (a PDF, a text file...). */
export type ContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly mediaType: string; readonly data: Uint8Array | string | URL }
  | {
      readonly type: "file";
      readonly mediaType: string;
      readonly data: Uint8Array | string | URL;
      readonly filename?: string;
    };

/** The content of a user or tool message: text, or a list of parts. */
export type MessageContent = string | readonly ContentPart[];

/** An image or file part. */
export type MediaPart = Extract<ContentPart, { type: "image" | "file" }>;

/** The most bytes one part may hold: 50 MiB (52,428,800 bytes), the size of the largest request the providers take. */
export const MAX_PART_BYTES = 50 * 1024 * 1024;

const PART_TYPES = ["text", "image", "file"];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The content as a run holds it, or throws a one-line `TypeError` (a part of an unknown type or
 * shape) or `RangeError` (a part over `MAX_PART_BYTES`). Text stays as it is. In each image or
 * file part, `data` becomes a string: base64 of the bytes (from a `Uint8Array`, base64 text, or a
 * `data:` URL), or the URL's `href` for any other URL, which is passed to the provider and never
 * fetched. Base64 has no `:`, so a `data` with one is a URL (`partUrl`). `what` names the content.
 */
export function normalizeContent(content: unknown, what: string): MessageContent {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    throw new TypeError(`${what} must be a string or a list of content parts; got ${kindOf(content)}`);
  }
  return Object.freeze(content.map((part: unknown, index) => normalizePart(part, `${what}, part ${index}`)));
}

function normalizePart(part: unknown, where: string): ContentPart {
  if (typeof part !== "object" || part === null) throw new TypeError(`${where} must be an object; got ${kindOf(part)}`);
  const { type } = part as { type?: unknown };
  if (typeof type !== "string" || !PART_TYPES.includes(type)) {
    throw new TypeError(
      `${where} has the unknown type ${JSON.stringify(type) ?? "undefined"}: use text, image or file`,
    );
  }
  if (type === "text") {
    const { text } = part as { text?: unknown };
    if (typeof text !== "string") throw new TypeError(`${where} (text) must have a string 'text'; got ${kindOf(text)}`);
    return Object.freeze({ type: "text", text });
  }
  const { mediaType, data, filename } = part as { mediaType?: unknown; data?: unknown; filename?: unknown };
  if (typeof mediaType !== "string" || !/^[\w.+-]+\/[\w.+-]+$/.test(mediaType)) {
    throw new TypeError(`${where} (${type}) must have a 'mediaType' such as image/png; got ${kindOf(mediaType)}`);
  }
  if (type === "image" && !mediaType.startsWith("image/")) {
    throw new TypeError(`${where} is an image with the media type '${mediaType}': give it as a file part`);
  }
  const normalized = normalizeData(data, `${where} (${type})`);
  if (type === "image") return Object.freeze({ type, mediaType, data: normalized });
  if (filename !== undefined && typeof filename !== "string") {
    throw new TypeError(`${where} (file) has a 'filename' that is not a string; got ${kindOf(filename)}`);
  }
  return Object.freeze({ type: "file", mediaType, data: normalized, ...(filename === undefined ? {} : { filename }) });
}

function normalizeData(data: unknown, where: string): string {
  if (data instanceof URL) return urlData(data, where);
  if (data instanceof Uint8Array) return base64Of(data, where);
  if (typeof data !== "string") {
    throw new TypeError(`${where} must have 'data' as a Uint8Array, base64 text or a URL; got ${kindOf(data)}`);
  }
  if (data.includes(":")) {
    let url: URL;
    try {
      url = new URL(data);
    } catch {
      throw new TypeError(`${where} has 'data' that is neither base64 nor a URL`);
    }
    return urlData(url, where);
  }
  const compact = data.replace(/\s+/g, "");
  if (!BASE64.test(compact) || compact.length % 4 === 1) throw new TypeError(`${where} has 'data' that is not base64`);
  return base64Of(base64Bytes(compact), where);
}

function urlData(url: URL, where: string): string {
  if (url.protocol !== "data:") return url.href;
  const comma = url.href.indexOf(",");
  const header = url.href.slice(5, comma);
  const body = url.href.slice(comma + 1);
  if (comma < 0 || !header.endsWith(";base64")) {
    return base64Of(new TextEncoder().encode(decodeURIComponent(body)), where);
  }
  return normalizeData(body, where);
}

function base64Of(bytes: Uint8Array, where: string): string {
  if (bytes.byteLength > MAX_PART_BYTES) {
    throw new RangeError(
      `${where} holds ${bytes.byteLength} bytes, over the limit of ${MAX_PART_BYTES} bytes (50 MiB) per part`,
    );
  }
  return bytesBase64(bytes);
}

// Node's Buffer where there is one (a global, not an import): its base64 is many times quicker than btoa's.
const NodeBuffer = (
  globalThis as {
    Buffer?: {
      from(bytes: Uint8Array | string, encoding?: "base64"): Uint8Array & { toString(encoding: "base64"): string };
    };
  }
).Buffer;

/** Base64 of `bytes`. */
export function bytesBase64(bytes: Uint8Array): string {
  if (NodeBuffer !== undefined) return NodeBuffer.from(bytes).toString("base64");
  let text = "";
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let at = 0; at < bytes.byteLength; at += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(text);
}

/** The bytes that base64 text (checked already) encodes. */
export function base64Bytes(base64: string): Uint8Array {
  if (NodeBuffer !== undefined) return new Uint8Array(NodeBuffer.from(base64, "base64"));
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** How many bytes a normalized part's base64 `data` holds (0 for a URL). */
export function partByteLength(part: MediaPart): number {
  const data = part.data as string;
  if (data.includes(":")) return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

/** The URL a normalized part points to, or null when its `data` is the bytes themselves. */
export function partUrl(part: MediaPart): URL | null {
  const data = part.data;
  if (data instanceof URL) return data;
  return typeof data === "string" && data.includes(":") ? new URL(data) : null;
}

/**
 * A tool's result given as parts (an image it made, a file it read) instead of JSON: a tool returns
 * `contentParts([...])`, and the model is shown the parts. Parts are checked as the task's are,
 * so a bad part makes the call fail with one line that says why.
 */
export class ContentParts {
  readonly parts: readonly ContentPart[];

  constructor(parts: readonly ContentPart[]) {
    this.parts = normalizeContent(parts, "the tool's result") as readonly ContentPart[];
  }
}

/** `new ContentParts(parts)`: what a tool returns to give the model images, files or text parts. */
export function contentParts(parts: readonly ContentPart[]): ContentParts {
  return new ContentParts(parts);
}

/** Whether the content is a list of parts with an image or a file in it. */
export function hasMedia(content: MessageContent): boolean {
  return typeof content !== "string" && content.some((part) => part.type !== "text");
}

/**
 * The content as text: itself when it is text; else its text parts, one per line, with each
 * image or file as a bracketed note (`[image image/png]`, `[file report.pdf]`), for what only
 * shows text (guardrails, summaries, the CLI).
 */
export function contentText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content
    .map((part) =>
      part.type === "text"
        ? part.text
        : part.type === "image"
          ? `[image ${part.mediaType}]`
          : `[file ${part.filename ?? part.mediaType}]`,
    )
    .join("\n");
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object"
    ? "an object"
    : typeof value === "string"
      ? JSON.stringify(value).slice(0, 40)
      : typeof value;
}

/** Whether `value` is content as a run holds it and logs it: text, or parts whose `data` is a string (see `normalizeContent`). */
export function isHeldContent(value: unknown): value is MessageContent {
  if (typeof value === "string") return true;
  return Array.isArray(value) && value.every(isHeldPart);
}

function isHeldPart(part: unknown): boolean {
  if (typeof part !== "object" || part === null) return false;
  const { type, text, mediaType, data, filename } = part as Record<string, unknown>;
  if (type === "text") return typeof text === "string";
  if (type !== "image" && type !== "file") return false;
  if (typeof mediaType !== "string" || typeof data !== "string") return false;
  return filename === undefined || (type === "file" && typeof filename === "string");
}
