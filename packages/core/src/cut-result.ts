/** Tool results longer than this many characters are cut when no limit is given. */
export const DEFAULT_MAX_RESULT_CHARS = 8000;

/**
 * Cuts `text` to at most `limit` characters of content, keeping its head and its tail around a
 * marker that says how many characters were cut; shorter text comes back as it is.
 */
export function cutResult(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.ceil(limit / 2);
  const tail = limit - head;
  const cut = text.length - limit;
  return `${text.slice(0, head)}\n[... ${cut} characters cut ...]\n${tail > 0 ? text.slice(-tail) : ""}`;
}
