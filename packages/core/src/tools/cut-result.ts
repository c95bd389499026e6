/** Tool results longer than this many characters are cut when no limit is given. */
export const DEFAULT_MAX_RESULT_CHARS = 8000;

/**
 * Cuts `text` to at most `limit` characters of content, keeping its head and its tail around a
 * marker that says how many characters were cut; shorter text comes back as it is.
 */
export function cutResult(text: string, limit: number): string {
  if (text.length <= limit) return text;
  // Never split a surrogate pair: a lone half is not valid Unicode, and providers refuse it.
  const head = backOffPair(text, Math.ceil(limit / 2));
  const tailStart = text.length - (limit - Math.ceil(limit / 2));
  const from = isLowSurrogate(text.charCodeAt(tailStart)) ? tailStart + 1 : tailStart;
  const cut = from - head;
  return `${text.slice(0, head)}\n[... ${cut} characters cut ...]\n${text.slice(from)}`;
}

/** Whether `value` is a result limit: a whole number of characters above 0, or Infinity for none. */
export function isCharLimit(value: number): boolean {
  return value === Number.POSITIVE_INFINITY || (Number.isSafeInteger(value) && value > 0);
}

/** `end`, moved back by one if the code unit before it opens a surrogate pair that `end` would split. */
function backOffPair(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
