import type {
  IndexedMemory,
  LexicalCandidate,
  MemoryEmbed,
  MemoryHit,
  MemoryScope,
  MemoryStore,
  VectorCandidate,
} from "../data/index.js";
import {
  checkedVector,
  checkMemoryWrite,
  indexMemory,
  memoryText,
  rankLexical,
  scopeKey,
  searchMemory,
} from "../data/index.js";

/** A memory as kept: its value, its terms, and its vector when the store embeds. */
interface Kept extends IndexedMemory {
  readonly value: string;
  readonly vector?: readonly number[];
}

/** One scope's memories by key, with the keys holding each term (the inverted index) and their total length in terms. */
interface Scope {
  readonly memories: Map<string, Kept>;
  readonly holding: Map<string, Set<string>>;
  totalLength: number;
}

/**
 * A `MemoryStore` in this process's memory, for tests and single-process apps: nothing survives
 * the process. Search is lexical (BM25, see `rankLexical`), or semantic with `embed`, whose vector
 * of each memory is computed once, when it is written (an unchanged value is not embedded again).
 */
export class InMemoryMemoryStore implements MemoryStore {
  readonly #scopes = new Map<string, Scope>();
  readonly #embed: MemoryEmbed | undefined;

  constructor(options: { readonly embed?: MemoryEmbed } = {}) {
    if (options.embed !== undefined && typeof options.embed !== "function") {
      throw new TypeError("embed must be a function from a text to a list of numbers");
    }
    this.#embed = options.embed;
  }

  async put(scope: MemoryScope, key: string, value: string): Promise<void> {
    const name = scopeKey(scope);
    checkMemoryWrite(key, value);
    const before = this.#scopes.get(name)?.memories.get(key);
    if (before !== undefined && before.value === value) return;
    const embed = this.#embed;
    const vector = embed === undefined ? undefined : checkedVector(await embed(memoryText(key, value)));
    // Taken again after the wait: another write may have made or dropped the scope meanwhile.
    const kept = this.#scopeOf(name);
    this.#drop(kept, key);
    const memory: Kept = { value, ...indexMemory(key, value), ...(vector === undefined ? {} : { vector }) };
    kept.memories.set(key, memory);
    kept.totalLength += memory.length;
    for (const term of memory.terms.keys()) {
      const keys = kept.holding.get(term);
      if (keys === undefined) kept.holding.set(term, new Set([key]));
      else keys.add(key);
    }
  }

  async get(scope: MemoryScope, key: string): Promise<string | undefined> {
    return this.#scopes.get(scopeKey(scope))?.memories.get(key)?.value;
  }

  async search(scope: MemoryScope, query: string, limit: number): Promise<readonly MemoryHit[]> {
    const name = scopeKey(scope);
    return searchMemory(query, limit, this.#embed, {
      vectors: () => vectorsOf(this.#scopes.get(name)?.memories),
      lexical: (terms) => {
        const kept = this.#scopes.get(name);
        if (kept === undefined) return [];
        const holding = new Map(terms.map((term) => [term, kept.holding.get(term)?.size ?? 0]));
        const keys = new Set(terms.flatMap((term) => [...(kept.holding.get(term) ?? [])]));
        const candidates = [...keys].map((key): LexicalCandidate => {
          const memory = kept.memories.get(key) as Kept;
          return { key, value: memory.value, length: memory.length, counts: memory.terms };
        });
        const corpus = { count: kept.memories.size, totalLength: kept.totalLength, holding };
        return rankLexical(terms, corpus, candidates, limit);
      },
    });
  }

  async delete(scope: MemoryScope, key?: string): Promise<void> {
    const name = scopeKey(scope);
    if (key === undefined) {
      this.#scopes.delete(name);
      return;
    }
    const kept = this.#scopes.get(name);
    if (kept !== undefined) this.#drop(kept, key);
  }

  #scopeOf(name: string): Scope {
    const kept = this.#scopes.get(name);
    if (kept !== undefined) return kept;
    const made: Scope = { memories: new Map(), holding: new Map(), totalLength: 0 };
    this.#scopes.set(name, made);
    return made;
  }

  #drop(kept: Scope, key: string): void {
    const memory = kept.memories.get(key);
    if (memory === undefined) return;
    kept.memories.delete(key);
    kept.totalLength -= memory.length;
    for (const term of memory.terms.keys()) {
      const keys = kept.holding.get(term);
      keys?.delete(key);
      if (keys?.size === 0) kept.holding.delete(term);
    }
  }
}

/** The memories of a scope as semantic ranking takes them, made one at a time as it reads them. */
function* vectorsOf(memories: ReadonlyMap<string, Kept> | undefined): Iterable<VectorCandidate> {
  if (memories === undefined) return;
  for (const [key, kept] of memories) yield { key, value: kept.value, vector: kept.vector ?? [] };
}
