import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { MemoryEmbed, MemoryHit, MemoryScope, MemoryStore } from "@agentloop/core";
import {
  checkedVector,
  checkMemoryWrite,
  indexMemory,
  memoryText,
  rankTermRows,
  scopeKey,
  searchMemory,
} from "@agentloop/core/store";
import { openDatabase, type SqliteDatabase, type SqliteStatement } from "./sqlite-driver.js";

// Plain SQL, so that another SQL store can take it as it is: a memory per row, per memory the
// count of each of its terms (the inverted index lexical search selects candidates by), and per
// scope its number of memories and their total length in terms (kept in each write's transaction,
// so that a search reads two numbers instead of counting the scope). Ranking is
// done in TypeScript by the functions every store shares, over what these queries give.
const LAYOUT = `
  CREATE TABLE IF NOT EXISTS memories (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    length INTEGER NOT NULL,
    embedding BLOB,
    PRIMARY KEY (scope, key)
  ) STRICT;
  CREATE TABLE IF NOT EXISTS memory_terms (
    scope TEXT NOT NULL,
    term TEXT NOT NULL,
    key TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (scope, term, key)
  ) STRICT;
  CREATE TABLE IF NOT EXISTS memory_scopes (
    scope TEXT PRIMARY KEY,
    memories INTEGER NOT NULL,
    total_length INTEGER NOT NULL
  ) STRICT;
`;

/** Options of `SqliteMemoryStore`. */
export interface SqliteMemoryStoreOptions {
  /** Makes search semantic: each memory's vector is computed once, when it is written, and kept beside it. */
  readonly embed?: MemoryEmbed;
  /** How long to wait for another connection's write lock before failing with `SQLITE_BUSY`, in milliseconds (default 5000). */
  readonly timeout?: number;
}

/** The statements of a lexical search for one number of query terms. */
interface LexicalStatements {
  readonly frequencies: SqliteStatement<{ readonly term: string; readonly holding: number }>;
  readonly candidates: SqliteStatement<CandidateRow>;
}

interface CandidateRow {
  readonly key: string;
  readonly value: string;
  readonly length: number;
  readonly term: string;
  readonly count: number;
}

/**
 * A `MemoryStore` in a SQLite file (WAL), on the same drivers as `SqliteEventStore`: its own file,
 * or the event store's (the tables are `memories` and `memory_terms`). Search ranks exactly as
 * `InMemoryMemoryStore` does: lexical (BM25) by default, semantic with `embed`, whose vectors are
 * stored as 64-bit floats (the numbers the embedder gave, bit for bit). `":memory:"` gives a
 * private store that dies with the object.
 */
export class SqliteMemoryStore implements MemoryStore {
  readonly filename: string;
  readonly #db: SqliteDatabase;
  readonly #embed: MemoryEmbed | undefined;
  readonly #get: SqliteStatement<{ readonly value: string }>;
  readonly #count: SqliteStatement<{ readonly memories: number; readonly total: number }>;
  readonly #length: SqliteStatement<{ readonly length: number }>;
  readonly #addToScope: SqliteStatement<never>;
  readonly #vectors: SqliteStatement<{
    readonly key: string;
    readonly value: string;
    readonly embedding: Uint8Array | null;
  }>;
  readonly #insert: SqliteStatement<never>;
  readonly #insertTerm: SqliteStatement<never>;
  readonly #deleteOne: SqliteStatement<never>;
  readonly #deleteTerms: SqliteStatement<never>;
  readonly #deleteScope: SqliteStatement<never>;
  readonly #deleteScopeTerms: SqliteStatement<never>;
  readonly #deleteScopeCount: SqliteStatement<never>;
  /** The lexical search's statements by number of query terms (a query has few distinct terms). */
  readonly #lexical = new Map<number, LexicalStatements>();

  constructor(filename: string, options: SqliteMemoryStoreOptions = {}) {
    if (options.embed !== undefined && typeof options.embed !== "function") {
      throw new TypeError("embed must be a function from a text to a list of numbers");
    }
    this.filename = filename;
    this.#embed = options.embed;
    if (filename !== ":memory:" && filename !== "") mkdirSync(dirname(filename), { recursive: true });
    this.#db = openDatabase(filename, { timeout: options.timeout ?? 5000, readonly: false });
    try {
      this.#db.exec("PRAGMA journal_mode = WAL");
      this.#db.exec(LAYOUT);
    } catch (error) {
      this.#db.close();
      throw error;
    }
    const db = this.#db;
    this.#get = db.prepare("SELECT value FROM memories WHERE scope = ? AND key = ?");
    this.#count = db.prepare("SELECT memories, total_length AS total FROM memory_scopes WHERE scope = ?");
    this.#length = db.prepare("SELECT length FROM memories WHERE scope = ? AND key = ?");
    this.#addToScope = db.prepare(
      `INSERT INTO memory_scopes (scope, memories, total_length) VALUES (?, ?, ?)
       ON CONFLICT (scope) DO UPDATE SET memories = memories + excluded.memories, total_length = total_length + excluded.total_length`,
    );
    this.#vectors = db.prepare("SELECT key, value, embedding FROM memories WHERE scope = ?");
    this.#insert = db.prepare(
      "INSERT OR REPLACE INTO memories (scope, key, value, length, embedding) VALUES (?, ?, ?, ?, ?)",
    );
    this.#insertTerm = db.prepare("INSERT INTO memory_terms (scope, term, key, count) VALUES (?, ?, ?, ?)");
    this.#deleteOne = db.prepare("DELETE FROM memories WHERE scope = ? AND key = ?");
    this.#deleteTerms = db.prepare("DELETE FROM memory_terms WHERE scope = ? AND key = ?");
    this.#deleteScope = db.prepare("DELETE FROM memories WHERE scope = ?");
    this.#deleteScopeTerms = db.prepare("DELETE FROM memory_terms WHERE scope = ?");
    this.#deleteScopeCount = db.prepare("DELETE FROM memory_scopes WHERE scope = ?");
  }

  async put(scope: MemoryScope, key: string, value: string): Promise<void> {
    const name = scopeKey(scope);
    checkMemoryWrite(key, value);
    if (this.#get.get(name, key)?.value === value) return;
    const embed = this.#embed;
    const vector = embed === undefined ? null : checkedVector(await embed(memoryText(key, value)));
    const { terms, length } = indexMemory(key, value);
    this.#db.immediate(() => {
      this.#forget(name, key);
      this.#insert.run(name, key, value, length, vector === null ? null : encodeVector(vector));
      for (const [term, count] of terms) this.#insertTerm.run(name, term, key, count);
      this.#addToScope.run(name, 1, length);
    });
  }

  async get(scope: MemoryScope, key: string): Promise<string | undefined> {
    return this.#get.get(scopeKey(scope), key)?.value;
  }

  async search(scope: MemoryScope, query: string, limit: number): Promise<readonly MemoryHit[]> {
    const name = scopeKey(scope);
    return searchMemory(query, limit, this.#embed, {
      vectors: () =>
        this.#vectors.all(name).map((row) => ({
          key: row.key,
          value: row.value,
          vector: row.embedding === null ? [] : decodeVector(row.embedding),
        })),
      lexical: (terms) => {
        const holding = new Map<string, number>(terms.map((term) => [term, 0]));
        const { frequencies, candidates } = this.#lexicalStatements(terms.length);
        for (const row of frequencies.all(name, ...terms)) holding.set(row.term, row.holding);
        return rankTermRows(terms, candidates.all(name, ...terms), holding, this.#count.get(name), limit);
      },
    });
  }

  async delete(scope: MemoryScope, key?: string): Promise<void> {
    const name = scopeKey(scope);
    this.#db.immediate(() => {
      if (key !== undefined) {
        this.#forget(name, key);
        return;
      }
      this.#deleteScope.run(name);
      this.#deleteScopeTerms.run(name);
      this.#deleteScopeCount.run(name);
    });
  }

  /** Removes one memory and its terms, and takes it off its scope's counts (inside a write's transaction). */
  #forget(name: string, key: string): void {
    const before = this.#length.get(name, key);
    if (before === undefined) return;
    this.#deleteOne.run(name, key);
    this.#deleteTerms.run(name, key);
    this.#addToScope.run(name, -1, -before.length);
  }

  /** The two queries of a lexical search for `count` terms, prepared once per number of terms. */
  #lexicalStatements(count: number): LexicalStatements {
    const kept = this.#lexical.get(count);
    if (kept !== undefined) return kept;
    const marks = Array.from({ length: count }, () => "?").join(", ");
    const made: LexicalStatements = {
      frequencies: this.#db.prepare(
        `SELECT term, count(*) AS holding FROM memory_terms WHERE scope = ? AND term IN (${marks}) GROUP BY term`,
      ),
      candidates: this.#db.prepare(
        `SELECT t.key AS key, m.value AS value, m.length AS length, t.term AS term, t.count AS count
         FROM memory_terms t JOIN memories m ON m.scope = t.scope AND m.key = t.key
         WHERE t.scope = ? AND t.term IN (${marks})`,
      ),
    };
    this.#lexical.set(count, made);
    return made;
  }

  /** Closes the database file; the store cannot be used afterwards. */
  close(): void {
    this.#db.close();
  }
}

/** A vector as 64-bit floats, little-endian: the numbers the embedder gave, bit for bit. */
function encodeVector(vector: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(vector.length * 8);
  const view = new DataView(bytes.buffer);
  for (const [index, number] of vector.entries()) view.setFloat64(index * 8, number, true);
  return bytes;
}

function decodeVector(bytes: Uint8Array): ArrayLike<number> {
  // A copy into an aligned buffer read as floats at once: on a little-endian machine (every one
  // Node runs on in practice) these are the bytes `encodeVector` wrote; elsewhere, one at a time.
  if (LITTLE_ENDIAN) return new Float64Array(bytes.slice().buffer);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength / 8 }, (_, index) => view.getFloat64(index * 8, true));
}

const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
