import { formatPath } from "./arg-path.js";
import { MAX_ARGS_DEPTH } from "./check-reply.js";
import { isPlainObject } from "./is-plain-object.js";

// Arguments may nest as deep as a reply may carry them: one constant for both.
export { MAX_ARGS_DEPTH } from "./check-reply.js";

/** A deep copy of plain JSON data, or the sentence that says where it is not plain JSON. */
export type Copied = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

/**
 * Copies arguments as plain JSON, so that a tool can change its copy without touching the logged
 * call and a validator never meets a getter, a Proxy or a cycle. Refuses, in one sentence, values
 * JSON cannot carry and nesting deeper than a reply may carry (`MAX_ARGS_DEPTH`, a cycle included).
 */
export function copyJson(value: unknown): Copied {
  const path: (string | number)[] = [];
  try {
    return { ok: true, value: copy(value, path) };
  } catch (error) {
    if (error instanceof NotJson) return { ok: false, problem: error.problem };
    throw error;
  }
}

class NotJson extends Error {
  constructor(readonly problem: string) {
    super(problem);
  }
}

function copy(value: unknown, path: (string | number)[]): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    throw new NotJson(`${named(path)} must be a finite number, not ${value}`);
  }
  if (path.length >= MAX_ARGS_DEPTH) {
    throw new NotJson(`arguments must not nest deeper than ${MAX_ARGS_DEPTH} levels (at '${formatPath(path)}')`);
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => within(path, index, () => copy(item, path)));
  }
  if (!isPlainObject(value)) throw new NotJson(`${named(path)} must be JSON data, not ${kindOf(value)}`);
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // defineProperty, not assignment: a key named __proto__ stays a plain own key.
    const item = within(path, key, () => copy(value[key], path));
    Object.defineProperty(result, key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return result;
}

function within<T>(path: (string | number)[], segment: string | number, run: () => T): T {
  path.push(segment);
  const result = run();
  path.pop();
  return result;
}

function named(path: readonly (string | number)[]): string {
  return path.length === 0 ? "the arguments" : `argument '${formatPath(path)}'`;
}

function kindOf(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "object") return "an object of a class";
  return `a ${typeof value}`;
}

/**
 * Where `value` stops being plain JSON data (plain objects, arrays, strings, finite numbers,
 * booleans, null), as a dotted location, or null when it is JSON all through; `depth` bounds the walk.
 */
export function firstNonJson(value: unknown, location = "", depth = 0): string | null {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : location || "(root)";
  if (depth > MAX_ARGS_DEPTH * 2) return `${location || "(root)"} (nested too deep)`;
  const entries = Array.isArray(value) ? value.entries() : isPlainObject(value) ? Object.entries(value) : null;
  if (entries === null) return location || "(root)";
  for (const [key, item] of entries) {
    const found = firstNonJson(item, location === "" ? String(key) : `${location}.${key}`, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
