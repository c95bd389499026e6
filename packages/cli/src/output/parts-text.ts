import { createHash } from "node:crypto";
import type { MessageContent } from "../core-api.js";

/** A part's bytes as shown: their size, then the start of their SHA-256 (by which the log keeps them). */
export interface PartNote {
  readonly kind: "image" | "file";
  readonly mediaType: string;
  readonly filename?: string;
  /** The bytes' length, or null for a URL. */
  readonly bytes: number | null;
  /** The bytes' SHA-256 in hex, or null for a URL. */
  readonly sha256: string | null;
  /** The URL the part points to, or null when it holds the bytes. */
  readonly url: string | null;
}

// A picture shown again (a tool result, a fork) is hashed once.
const hashes = new Map<string, string>();

/** What shows of an image or file part, held as the run holds it: base64 bytes, or a URL. */
export function partNote(part: {
  type: "image" | "file";
  mediaType: string;
  data: unknown;
  filename?: string;
}): PartNote {
  const data = String(part.data);
  const named = {
    kind: part.type,
    mediaType: part.mediaType,
    ...(part.filename === undefined ? {} : { filename: part.filename }),
  };
  if (data.includes(":")) return { ...named, bytes: null, sha256: null, url: data };
  let sha256 = hashes.get(data);
  const bytes = Buffer.from(data, "base64");
  if (sha256 === undefined) {
    sha256 = createHash("sha256").update(bytes).digest("hex");
    if (hashes.size >= 64) hashes.delete(hashes.keys().next().value as string);
    hashes.set(data, sha256);
  }
  return { ...named, bytes: bytes.byteLength, sha256, url: null };
}

/** A size in bytes, KB or MB (of 1,024), as people read it: "512 B", "12 KB", "5.0 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** One line for a part: "image/png, 12 KB, sha256:ab12cd34ef56…", or its URL. */
export function partLine(note: PartNote): string {
  const what = note.filename === undefined ? note.mediaType : `${note.filename} (${note.mediaType})`;
  if (note.url !== null) return `${note.kind} ${what}, ${note.url}`;
  return `${note.kind} ${what}, ${formatSize(note.bytes ?? 0)}, sha256:${(note.sha256 ?? "").slice(0, 12)}…`;
}

/** The content as text for a terminal: text parts as they are, each image or file part as `[partLine]`. */
export function partsText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : `[${partLine(partNote(part))}]`)).join("\n");
}
