import type { MemoryEmbed, MemoryHit } from "./memory.js";

/**
 * How every memory store ranks, in one place, so that the same data gives the same hits in the
 * same order in every store: the store selects candidates and counts (plain SQL does), and these
 * functions score them in TypeScript. Lexical search is BM25 over the scope's memories (key and
 * value as one text); semantic search is the cosine of the stored vectors with the query's. Both
 * order by score, best first, then by key in code-unit order, and both are pure.
 */

/** BM25's term-frequency saturation. */
const K1 = 1.2;
/** BM25's length normalization. */
const B = 0.75;

/** The terms of a text: its runs of letters and digits, NFKC-normalized and lower-cased, each with how often it comes. */
export function memoryTerms(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of text
    .normalize("NFKC")
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? []) {
    counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return counts;
}

/** What a store keeps of a memory to search it lexically: its terms (key and value) with their counts, and its length in terms. */
export interface IndexedMemory {
  readonly terms: ReadonlyMap<string, number>;
  readonly length: number;
}

/** A memory as one text, which stores index and embed: its key, a line break, its value. */
export function memoryText(key: string, value: string): string {
  return `${key}\n${value}`;
}

/** The terms of a memory as stores index them: its key and value as one text (`memoryText`). */
export function indexMemory(key: string, value: string): IndexedMemory {
  const terms = memoryTerms(memoryText(key, value));
  let length = 0;
  for (const count of terms.values()) length += count;
  return { terms, length };
}

/** The distinct terms of a query, sorted (so that scores are summed in one order everywhere). */
export function queryTerms(query: string): string[] {
  return [...memoryTerms(query).keys()].sort(compareKeys);
}

/** What lexical ranking needs of the whole scope: how many memories, their total length in terms, and per query term how many hold it. */
export interface LexicalCorpus {
  readonly count: number;
  readonly totalLength: number;
  readonly holding: ReadonlyMap<string, number>;
}

/** A memory that holds at least one query term: its key, value, length in terms, and its counts of the query terms it holds. */
export interface LexicalCandidate {
  readonly key: string;
  readonly value: string;
  readonly length: number;
  readonly counts: ReadonlyMap<string, number>;
}

/** The best `limit` candidates by BM25 score for `terms` (from `queryTerms`), ties by key; memories that match no term are not hits. */
export function rankLexical(
  terms: readonly string[],
  corpus: LexicalCorpus,
  candidates: Iterable<LexicalCandidate>,
  limit: number,
): MemoryHit[] {
  const { count, totalLength } = corpus;
  const average = count === 0 ? 1 : totalLength / count || 1;
  const weights = terms.map((term) => {
    const holding = corpus.holding.get(term) ?? 0;
    return Math.log(1 + (count - holding + 0.5) / (holding + 0.5));
  });
  const hits: MemoryHit[] = [];
  for (const candidate of candidates) {
    let score = 0;
    for (const [index, term] of terms.entries()) {
      const frequency = candidate.counts.get(term) ?? 0;
      if (frequency === 0) continue;
      const norm = K1 * (1 - B + (B * candidate.length) / average);
      score += ((weights[index] as number) * frequency * (K1 + 1)) / (frequency + norm);
    }
    if (score > 0) hits.push({ key: candidate.key, value: candidate.value, score });
  }
  return topHits(hits, limit);
}

/** A row of a SQL store's term index joined with its memory: one query term the memory holds, and how often. */
export interface TermRow {
  readonly key: string;
  readonly value: string;
  readonly length: number;
  readonly term: string;
  readonly count: number;
}

/**
 * `rankLexical` over what a SQL store's queries give: `rows` (one per memory and query term it
 * holds), `holding` (how many memories hold each term) and `counted` (the scope's number of memories
 * and their total length; `undefined` for a scope with none).
 */
export function rankTermRows(
  terms: readonly string[],
  rows: Iterable<TermRow>,
  holding: ReadonlyMap<string, number>,
  counted: { readonly memories: number; readonly total: number } | undefined,
  limit: number,
): MemoryHit[] {
  const candidates = new Map<string, LexicalCandidate & { readonly counts: Map<string, number> }>();
  for (const row of rows) {
    let candidate = candidates.get(row.key);
    if (candidate === undefined) {
      candidate = { key: row.key, value: row.value, length: row.length, counts: new Map() };
      candidates.set(row.key, candidate);
    }
    candidate.counts.set(row.term, row.count);
  }
  const corpus = { count: counted?.memories ?? 0, totalLength: counted?.total ?? 0, holding };
  return rankLexical(terms, corpus, candidates.values(), limit);
}

/** A memory with its stored vector, for semantic ranking. */
export interface VectorCandidate {
  readonly key: string;
  readonly value: string;
  readonly vector: ArrayLike<number>;
}

/** The best `limit` candidates by cosine similarity with `query`, ties by key; throws a `TypeError` for vectors of other lengths. */
export function rankSemantic(
  query: readonly number[],
  candidates: Iterable<VectorCandidate>,
  limit: number,
): MemoryHit[] {
  const hits: MemoryHit[] = [];
  for (const candidate of candidates) {
    hits.push({ key: candidate.key, value: candidate.value, score: cosine(query, candidate.vector) });
  }
  return topHits(hits, limit);
}

/** The cosine of two vectors of the same length (0 when either is all zeros). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) {
    throw new TypeError(
      `the embedding has ${b.length} dimensions, the query's ${a.length}: embed every memory with the same model`,
    );
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    const x = a[index] as number;
    const y = b[index] as number;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / (Math.sqrt(normA) * Math.sqrt(normB));
}

/** Checks what an embedder gave: a non-empty list of finite numbers, copied. */
export function checkedVector(vector: unknown): number[] {
  if (!Array.isArray(vector) && !ArrayBuffer.isView(vector)) {
    throw new TypeError("embed must give a list of numbers");
  }
  const numbers = Array.from(vector as ArrayLike<unknown>);
  if (numbers.length === 0 || !numbers.every((each) => typeof each === "number" && Number.isFinite(each))) {
    throw new TypeError("embed must give a non-empty list of finite numbers");
  }
  return numbers as number[];
}

/** Hits best first, ties by key, at most `limit`. */
export function topHits(hits: MemoryHit[], limit: number): MemoryHit[] {
  hits.sort((a, b) => b.score - a.score || compareKeys(a.key, b.key));
  return hits.length > limit ? hits.slice(0, limit) : hits;
}

/** Code-unit order, as `Array#sort` without a comparer: the same in every store, whatever its collation. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Throws a `RangeError` for a limit that is not a whole number, 0 or more. */
export function checkLimit(limit: unknown): void {
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`a search limit must be a whole number, 0 or more; got ${String(limit)}`);
  }
}

/** Where a store's search of one scope gets what `searchMemory` ranks. */
export interface ScopeSearch {
  /** Runs once the query and limit passed and the limit is not 0, before anything is embedded or read (e.g. to open the store's tables). */
  readonly ready?: () => Promise<void>;
  /** The scope's memories with their vectors, for a store that embeds. */
  readonly vectors: () => Iterable<VectorCandidate> | Promise<Iterable<VectorCandidate>>;
  /** The best `limit` hits for `terms` (from `queryTerms`, at least one), for a store that does not embed. */
  readonly lexical: (terms: readonly string[]) => readonly MemoryHit[] | Promise<readonly MemoryHit[]>;
}

/**
 * A store's `search` of one scope, the same in every store: `query` and `limit` are checked (a
 * `TypeError`, a `RangeError`); with `embed`, the scope's vectors are ranked by the query's, else
 * the query's terms are ranked lexically. A limit of 0, or a query with no terms, finds nothing.
 */
export async function searchMemory(
  query: string,
  limit: number,
  embed: MemoryEmbed | undefined,
  search: ScopeSearch,
): Promise<readonly MemoryHit[]> {
  checkLimit(limit);
  if (typeof query !== "string") throw new TypeError("a memory search's query must be a string");
  if (limit === 0) return [];
  if (search.ready !== undefined) await search.ready();
  if (embed !== undefined) return rankSemantic(checkedVector(await embed(query)), await search.vectors(), limit);
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  return search.lexical(terms);
}
