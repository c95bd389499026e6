import type { ToolCall } from "../data/index.js";

/** A call's identity for repeat detection: its tool and its arguments as JSON with keys sorted at every level. */
export function callKey(call: ToolCall): string {
  let key = keys.get(call);
  if (key === undefined) {
    key = `${call.name}:${call.rawArgs ?? canonicalJson(call.args)}`;
    keys.set(call, key);
  }
  return key;
}

// Calls in the trace are frozen, so a call's key never changes: the guards and the assign that
// ask for it at each call share one computation.
const keys = new WeakMap<ToolCall, string>();

/** JSON with the keys of every object sorted, so that key order never makes two values differ. */
export function canonicalJson(value: unknown): string {
  // Most arguments are already canonical (a flat object with its keys in order): then it is their JSON.
  if (isCanonical(value, 0)) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Whether `JSON.stringify(value)` is already canonical: JSON scalars, and arrays and plain objects (keys in order) of them. */
function isCanonical(value: unknown, depth: number): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || depth > 8) return false;
  if (Array.isArray(value)) {
    // Indexed reads: a hole reads as undefined, which is not canonical.
    for (let index = 0; index < value.length; index++) if (!isCanonical(value[index], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (
      (index > 0 && (keys[index - 1] as string) >= key) ||
      !isCanonical((value as Record<string, unknown>)[key], depth + 1)
    ) {
      return false;
    }
  }
  return true;
}
