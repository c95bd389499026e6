import { ContentParts, describeThrown, type ToolOutcome } from "../data/index.js";

/** `describeThrown`, for anything at all: a value whose every trap or getter throws still gets a description. */
export function describeSafely(value: unknown): string {
  try {
    return describeThrown(value);
  } catch {
    return "threw a value that cannot be described";
  }
}

/**
 * A tool's result as its outcome: `ok` with the parts of a `ContentParts` result, its JSON, or
 * `null` for `undefined`; `threw` with an `ERROR:` sentence for a value JSON cannot carry (a
 * BigInt, a cycle, a getter, `toJSON` or Proxy trap that throws, a function or a `toJSON` that
 * gives nothing). Never throws.
 */
export function encodeResult(name: string, result: unknown): ToolOutcome {
  if (result instanceof ContentParts) return { kind: "ok", content: result.parts };
  let text: string | undefined;
  try {
    text = JSON.stringify(result);
  } catch (error) {
    return {
      kind: "threw",
      content: `ERROR: ${name} returned a value that cannot be sent as JSON: ${describeSafely(error)}`,
    };
  }
  if (typeof text === "string") return { kind: "ok", content: text };
  if (result === undefined) return { kind: "ok", content: "null" };
  const content = `ERROR: ${name} returned a value that has no JSON form (a ${typeof result}, or a toJSON that gives nothing): return JSON data`;
  return { kind: "threw", content };
}

/** A tool name as text, whatever a careless caller passed. */
export function labelOf(name: unknown): string {
  return typeof name === "string" ? name : describeSafely(name).replace(/^threw a non-Error value: /, "");
}
