import type { ToolCall } from "./types.js";

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
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
