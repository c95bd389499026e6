/**
 * Deep-frozen plain JSON values, made once and then trusted: a reply the driver copied goes into
 * the list without being walked again. Only values this module made (or froze) are trusted; a
 * value someone else froze is walked, and one built by a caller is copied.
 */

/** Objects and arrays made or frozen here: deep-frozen plain JSON data all the way down. */
const made = new WeakSet<object>();

/**
 * A deep-frozen copy of `value` if it is plain JSON data that JSON would not change (finite
 * numbers, strings, booleans, null, arrays without holes and plain objects), reading each
 * property exactly once; else undefined (the caller takes the JSON round trip instead). Values
 * made here are returned as they are; with `trustFrozen`, so is other frozen plain JSON data.
 */
export function copyFrozenJson(value: unknown, trustFrozen: boolean, depth = 0): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "object" || depth > 128) return undefined;
  if (made.has(value)) return value;
  if (trustFrozen && Object.isFrozen(value) && isFrozenJson(value, depth)) return value;
  let copy: unknown[] | Record<string, unknown>;
  if (Array.isArray(value)) {
    // A slice has exactly the length needed (a pushed-to array keeps spare room the trace would hold).
    const items: unknown[] = value.slice();
    for (let index = 0; index < items.length; index++) {
      const item = copyFrozenJson(items[index], trustFrozen, depth + 1);
      if (item === undefined) return undefined;
      items[index] = item;
    }
    copy = items;
  } else {
    if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
    const object: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      // `__proto__` as an own key would set the copy's prototype instead of copying the value.
      if (key === "__proto__") return undefined;
      const item = copyFrozenJson((value as Record<string, unknown>)[key], trustFrozen, depth + 1);
      if (item === undefined) return undefined;
      object[key] = item;
    }
    copy = object;
  }
  Object.freeze(copy);
  made.add(copy);
  return copy;
}

/**
 * Freezes `value` all the way down and trusts it from then on. Only for values that are plain
 * JSON data by construction: fresh from `JSON.parse`, or rebuilt from parts made here.
 */
export function freezeJson<T>(value: T): T {
  if (typeof value === "object" && value !== null && !made.has(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) freezeJson(child);
    made.add(value);
  }
  return value;
}

/** Whether a frozen value is deep-frozen plain JSON data, all the way down. */
function isFrozenJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || depth > 128) return false;
  if (made.has(value)) return true;
  if (!Object.isFrozen(value)) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (!isFrozenJson(value[index], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) {
    if (key === "__proto__" || !isFrozenJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
