/**
 * A value in a few words, for an error message that says what it got: a string quoted (its first
 * 40 characters, after "the string " when `named`), another primitive as it prints, else an array
 * or an object.
 */
export function describeValue(value: unknown, named = false): string {
  if (typeof value === "string") return `${named ? "the string " : ""}${JSON.stringify(value.slice(0, 40))}`;
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}
