import { isPlainObject } from "./is-plain-object.js";
import type { ProviderMetadata } from "./types.js";

/** Metadata may nest this deep, at most (the same bound as a call's arguments). */
const MAX_METADATA_DEPTH = 64;

/**
 * Checks that `value` is provider metadata: an object of objects by provider name, plain JSON all
 * through. Returns it as given, or one sentence (after `at`) saying what is wrong.
 */
export function checkProviderMetadata(value: unknown, at: string): ProviderMetadata | string {
  if (!isPlainObject(value)) return `${at} must be an object of objects by provider name`;
  for (const [provider, entries] of Object.entries(value)) {
    if (!isPlainObject(entries)) return `${at}.${provider} must be an object`;
    const found = firstNonJson(entries, 0);
    if (found !== null) return `${at}.${provider} must be plain JSON data (${found})`;
  }
  return value as ProviderMetadata;
}

function firstNonJson(value: unknown, depth: number): string | null {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : `a number that is ${value}`;
  if (depth >= MAX_METADATA_DEPTH) return `nested deeper than ${MAX_METADATA_DEPTH} levels`;
  const items = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : null;
  if (items === null) return typeof value === "object" ? "an object of a class" : `a ${typeof value}`;
  for (const item of items) {
    const found = firstNonJson(item, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
