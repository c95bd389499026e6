/**
 * Estimates tokens as about four characters each: `max(1, floor(JSON.stringify(value).length / 4))`.
 * A value JSON cannot encode at the top level (`undefined`, a function) counts as 1.
 */
export function countTokens(value: unknown): number {
  return tokensOfLength(JSON.stringify(value)?.length ?? 0);
}

/** The same estimate for a JSON text already known to be `length` characters long. */
export function tokensOfLength(length: number): number {
  return Math.max(1, Math.floor(length / 4));
}
