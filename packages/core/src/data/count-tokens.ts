import type { MediaPart } from "./content-part.js";
import { partTokens } from "./part-tokens.js";

/**
 * Estimates tokens as about four characters each: `max(1, floor(JSON.stringify(value).length / 4))`.
 * A value JSON cannot encode at the top level (`undefined`, a function) counts as 1. An image or
 * file part inside it counts by `partTokens` instead of its characters.
 */
export function countTokens(value: unknown): number {
  return tokensOfLength(jsonChars(value));
}

/** The same estimate for a JSON text already known to be `length` characters long. */
export function tokensOfLength(length: number): number {
  return Math.max(1, Math.floor(length / 4));
}

/**
 * The length of `value`'s JSON (0 when it has none), where each image or file part counts as
 * `{"type":…,"mediaType":…}` plus 4 characters per token of `partTokens`: what the estimate reads.
 */
export function jsonChars(value: unknown): number {
  const json = JSON.stringify(value);
  if (json === undefined) return 0;
  // Only a key "mediaType" can be a part; in text it would be escaped (\"mediaType\").
  if (!json.includes('"mediaType"')) return json.length;
  let extra = 0;
  const shown = JSON.stringify(value, (_key, item: unknown) => {
    if (!isMediaPart(item)) return item;
    extra += 4 * partTokens(item);
    return { type: item.type, mediaType: item.mediaType };
  });
  return shown.length + extra;
}

function isMediaPart(value: unknown): value is MediaPart {
  if (typeof value !== "object" || value === null) return false;
  const { type, mediaType, data } = value as Record<string, unknown>;
  return (type === "image" || type === "file") && typeof mediaType === "string" && typeof data === "string";
}
