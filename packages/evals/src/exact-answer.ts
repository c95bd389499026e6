import type { Scorer } from "./types.js";

/** 1 when the run's answer, trimmed, is the case's `expected` (a string), trimmed; else 0. Throws for a case without a string `expected`. */
export function exactAnswer(options: { readonly name?: string; readonly caseSensitive?: boolean } = {}): Scorer {
  const caseSensitive = options.caseSensitive ?? true;
  const fold = (text: string): string => (caseSensitive ? text.trim() : text.trim().toLowerCase());
  return {
    name: options.name ?? "exactAnswer",
    score({ case: c, result }) {
      if (typeof c.expected !== "string") throw new TypeError(`case '${c.id}' has no expected answer (a string)`);
      return result.answer !== null && fold(result.answer) === fold(c.expected) ? 1 : 0;
    },
  };
}
