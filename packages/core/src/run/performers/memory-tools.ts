import type { MemoryScope, MemoryStore } from "../../data/index.js";
import { checkedScope, describeValue } from "../../data/index.js";
import type { Tool, ToolContext } from "../../tools/index.js";
import { PERFORMER, tool } from "../../tools/index.js";

/** Hits a `recall` call gives when `memoryTools` is not told. */
export const DEFAULT_RECALL_HITS = 5;

const REMEMBER_PARAMETERS = {
  type: "object",
  properties: {
    key: {
      type: "string",
      description: "A short name for the fact, e.g. 'favourite_colour'. Writing a key again replaces its value.",
    },
    value: { type: "string", description: "The fact, in a sentence that makes sense on its own later." },
  },
  required: ["key", "value"],
} as const;

const RECALL_PARAMETERS = {
  type: "object",
  properties: { query: { type: "string", description: "What to look for, in a few words." } },
  required: ["query"],
} as const;

/**
 * The memory tools of one scope, for a registry: `remember` ({ key, value }) writes a fact, and a
 * run logs each write as `memory.written` before the call's result; `recall` ({ query }) searches
 * the scope and gives the best hits (at most `recall`, default 5) as JSON. Without `scope`, each
 * call reaches the scope of the run that makes it (its `options.memory`'s; a served run's is the
 * conversation's, `ServeOptions.memoryScope`), and a run without one is told so as an `ERROR:`.
 * A write is idempotent (the same key and value again change nothing), so a resumed run may make a
 * cut-off one again. Throws a `TypeError` now for a scope that is not one.
 */
export function memoryTools(
  memory: MemoryStore,
  scope?: MemoryScope,
  options: { readonly recall?: number } = {},
): readonly Tool[] {
  const methods = ["put", "search"] as const;
  if (memory === null || typeof memory !== "object" || methods.some((name) => typeof memory[name] !== "function")) {
    throw new TypeError(`memoryTools needs a MemoryStore; got ${describeValue(memory, true)}`);
  }
  const owner = scope === undefined ? null : checkedScope(scope);
  const limit = options.recall ?? DEFAULT_RECALL_HITS;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new RangeError(`recall must be a whole number, 1 or more; got ${limit}`);
  const remember = tool({
    name: "remember",
    description:
      "Remember a fact about the user for later conversations (a preference, a name, a decision). Not for anything secret.",
    parameters: REMEMBER_PARAMETERS,
    idempotent: true,
    execute: async ({ key, value }, context) => {
      await memory.put(scopeOf(owner, context), key, value);
      return { remembered: key };
    },
    [PERFORMER]: { kind: "memory-write", scope: owner },
  });
  const recall = tool({
    name: "recall",
    description: "Search what was remembered about the user in earlier conversations.",
    parameters: RECALL_PARAMETERS,
    idempotent: true,
    repeatable: true,
    execute: async ({ query }, context) => {
      const hits = await memory.search(scopeOf(owner, context), query, limit);
      return { memories: hits.map(({ key, value }) => ({ key, value })) };
    },
    [PERFORMER]: { kind: "memory-read", scope: owner },
  });
  return Object.freeze([remember, recall]);
}

/** Where a memory tool's call reaches: the tools' own scope, else the calling run's; a run without one is told so. */
function scopeOf(owner: MemoryScope | null, context: ToolContext): MemoryScope {
  const at = owner ?? context.memoryScope;
  if (at === undefined) {
    throw new Error("this run has no memory scope: start it with options.memory, or give memoryTools a scope");
  }
  return at;
}
