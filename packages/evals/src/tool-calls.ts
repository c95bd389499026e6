import type { RunEvent } from "@agentloop/core/store";
import type { Scorer } from "./types.js";

/** The names of the tools the model called, in call order, read from the run's log (its replies), not from its text. */
export function calledTools(events: readonly RunEvent[]): string[] {
  const names: string[] = [];
  for (const event of events) {
    if (event.type === "model.replied") for (const call of event.reply.toolCalls) names.push(call.name);
  }
  return names;
}

/**
 * Scores the run's trajectory against `expected` tool names. `order: "exact"` (the default): 1
 * when the calls are exactly these, in this order, else 0. `order: "any"`: the share of the
 * expected calls (counted with repeats) that were made, in any order, among any others.
 */
export function toolCalls(
  expected: readonly string[],
  options: { readonly order?: "exact" | "any"; readonly name?: string } = {},
): Scorer {
  const order = options.order ?? "exact";
  return {
    name: options.name ?? "toolCalls",
    score({ events }) {
      const called = calledTools(events);
      if (order === "exact") {
        return called.length === expected.length && called.every((name, index) => name === expected[index]) ? 1 : 0;
      }
      if (expected.length === 0) return 1;
      const left = [...called];
      let found = 0;
      for (const name of expected) {
        const at = left.indexOf(name);
        if (at >= 0) {
          left.splice(at, 1);
          found += 1;
        }
      }
      return found / expected.length;
    },
  };
}
