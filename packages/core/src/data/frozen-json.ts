/**
 * Deep-frozen plain JSON values: copied from whatever a caller built, each property read once,
 * so that what is checked, logged and shown to the tools is one and the same value.
 */

/**
 * A deep-frozen copy of `value` if it is plain JSON data that JSON would not change (finite
 * numbers, strings, booleans, null, arrays without holes and plain objects), reading each
 * property exactly once; else undefined (the caller takes the JSON round trip instead). With
 * `trustFrozen`, parts that are deep-frozen plain JSON already (a reply the driver copied) are
 * kept as they are instead of copied again.
 */
export function copyFrozenJson(value: unknown, trustFrozen: boolean, depth = 0): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  // -0 is 0 in JSON, as the log will hold it.
  if (typeof value === "number") return Number.isFinite(value) ? value + 0 : undefined;
  if (typeof value !== "object" || depth > 128) return undefined;
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
  return Object.freeze(copy);
}

/** Freezes `value` all the way down (parts frozen already are taken as frozen all the way down). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Whether a frozen value is deep-frozen plain JSON data, all the way down. */
function isFrozenJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || depth > 128) return false;
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
