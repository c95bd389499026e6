import type { MemoryEmbed, MemoryHit, MemoryScope, MemoryStore } from "@agentloop/core";
import {
  checkedVector,
  checkMemoryWrite,
  indexMemory,
  memoryText,
  rankTermRows,
  scopeKey,
  searchMemory,
  type TermRow,
} from "@agentloop/core/store";
import pg from "pg";
import { type PgPool, type PgPoolClient, type PgQueryable, sqlState } from "./pg-types.js";
import type { PostgresConnection } from "./postgres-event-store.js";
import { checkSchemaName } from "./postgres-layout.js";
import { pooledTransaction } from "./transaction.js";

// The same tables as SQLite's memory store, in the schema named: a memory per row, per memory the
// count of each of its terms (the inverted index lexical search selects candidates by), and per
// scope its number of memories and their total length in terms (kept in each write's transaction).
// Ranking is done in TypeScript by the functions every store shares, over what these queries give,
// so the hits and their order are the reference's. Vectors are `double precision[]`: the numbers
// the embedder gave, bit for bit.
function layout(s: string): string {
  return `
    CREATE SCHEMA IF NOT EXISTS ${s};
    CREATE TABLE IF NOT EXISTS ${s}.memories (
      scope text NOT NULL,
      key text NOT NULL,
      value text NOT NULL,
      length integer NOT NULL,
      embedding double precision[],
      PRIMARY KEY (scope, key)
    );
    CREATE TABLE IF NOT EXISTS ${s}.memory_terms (
      scope text NOT NULL,
      term text NOT NULL,
      key text NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (scope, term, key)
    );
    CREATE TABLE IF NOT EXISTS ${s}.memory_scopes (
      scope text PRIMARY KEY,
      memories integer NOT NULL,
      total_length integer NOT NULL
    );`;
}

/** Settings of `PostgresMemoryStore`. */
export interface PostgresMemoryStoreSettings {
  /** The schema that holds the tables, created when missing (default `agentloop`, beside an event store's). */
  readonly schema?: string;
  /** Makes search semantic: each memory's vector is computed once, when it is written, and kept beside it. */
  readonly embed?: MemoryEmbed;
}

/**
 * A `MemoryStore` on PostgreSQL (pg), shared by every process and machine on the schema: the
 * tables `memories`, `memory_terms` and `memory_scopes`, beside an event store's when it is the same
 * schema. Writes to a scope are one transaction each, under an advisory lock of the scope, so its
 * counts stay exact however many processes write. Search ranks exactly as `InMemoryMemoryStore`
 * does: lexical (BM25) by default, semantic with `embed`.
 */
export class PostgresMemoryStore implements MemoryStore {
  readonly schema: string;
  /** The pool the store runs on. */
  readonly pool: PgPool;
  readonly #ownsPool: boolean;
  readonly #embed: MemoryEmbed | undefined;
  #ready: Promise<void> | null = null;
  #closed = false;

  constructor(connection: PostgresConnection, settings: PostgresMemoryStoreSettings = {}) {
    if (settings.embed !== undefined && typeof settings.embed !== "function") {
      throw new TypeError("embed must be a function from a text to a list of numbers");
    }
    this.schema = checkSchemaName(settings.schema ?? "agentloop");
    this.#embed = settings.embed;
    if ("pool" in connection) {
      this.pool = connection.pool;
      this.#ownsPool = false;
    } else {
      const pool = new pg.Pool({ connectionString: connection.connectionString, max: 10 });
      // A pooled connection that fails while idle is dropped by the pool: the next query opens another.
      pool.on("error", () => undefined);
      this.pool = pool as unknown as PgPool;
      this.#ownsPool = true;
    }
  }

  async put(scope: MemoryScope, key: string, value: string): Promise<void> {
    const name = scopeKey(scope);
    checkMemoryWrite(key, value);
    await this.#opened();
    if ((await this.#value(this.pool, name, key)) === value) return;
    const embed = this.#embed;
    const vector = embed === undefined ? null : checkedVector(await embed(memoryText(key, value)));
    const { terms, length } = indexMemory(key, value);
    await this.#writing(name, async (client) => {
      await this.#forget(client, name, key);
      const s = this.schema;
      await client.query(
        `INSERT INTO ${s}.memories (scope, key, value, length, embedding) VALUES ($1, $2, $3, $4, $5)`,
        [name, key, value, length, vector],
      );
      if (terms.size > 0) {
        await client.query(
          `INSERT INTO ${s}.memory_terms (scope, term, key, count) SELECT $1, t, $2, c FROM unnest($3::text[], $4::int[]) AS u(t, c)`,
          [name, key, [...terms.keys()], [...terms.values()]],
        );
      }
      await this.#addToScope(client, name, 1, length);
    });
  }

  async get(scope: MemoryScope, key: string): Promise<string | undefined> {
    const name = scopeKey(scope);
    await this.#opened();
    return this.#value(this.pool, name, key);
  }

  async search(scope: MemoryScope, query: string, limit: number): Promise<readonly MemoryHit[]> {
    const name = scopeKey(scope);
    const s = this.schema;
    return searchMemory(query, limit, this.#embed, {
      ready: () => this.#opened(),
      vectors: async () => {
        const rows = await this.pool.query<{ key: string; value: string; embedding: number[] | null }>(
          `SELECT key, value, embedding FROM ${s}.memories WHERE scope = $1`,
          [name],
        );
        return rows.rows.map((row) => ({ key: row.key, value: row.value, vector: row.embedding ?? [] }));
      },
      lexical: async (terms) => {
        const [frequencies, rows, counted] = await Promise.all([
          this.pool.query<{ term: string; holding: string }>(
            `SELECT term, count(*) AS holding FROM ${s}.memory_terms WHERE scope = $1 AND term = ANY($2) GROUP BY term`,
            [name, terms],
          ),
          this.pool.query<TermRow>(
            `SELECT t.key AS key, m.value AS value, m.length AS length, t.term AS term, t.count AS count
             FROM ${s}.memory_terms t JOIN ${s}.memories m ON m.scope = t.scope AND m.key = t.key
             WHERE t.scope = $1 AND t.term = ANY($2)`,
            [name, terms],
          ),
          this.pool.query<{ memories: number; total: number }>(
            `SELECT memories, total_length AS total FROM ${s}.memory_scopes WHERE scope = $1`,
            [name],
          ),
        ]);
        const holding = new Map<string, number>(terms.map((term) => [term, 0]));
        for (const row of frequencies.rows) holding.set(row.term, Number(row.holding));
        return rankTermRows(terms, rows.rows, holding, counted.rows[0], limit);
      },
    });
  }

  async delete(scope: MemoryScope, key?: string): Promise<void> {
    const name = scopeKey(scope);
    await this.#opened();
    const s = this.schema;
    await this.#writing(name, async (client) => {
      if (key !== undefined) return this.#forget(client, name, key);
      await client.query(`DELETE FROM ${s}.memories WHERE scope = $1`, [name]);
      await client.query(`DELETE FROM ${s}.memory_terms WHERE scope = $1`, [name]);
      await client.query(`DELETE FROM ${s}.memory_scopes WHERE scope = $1`, [name]);
    });
  }

  /** Ends the store's own pool (a pool given to it is left open); the store cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ready?.catch(() => undefined);
    if (this.#ownsPool) await this.pool.end();
  }

  #opened(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`the memory store on schema '${this.schema}' is closed`));
    this.#ready ??= this.#create().catch((error: unknown) => {
      // An event store creating the same schema at once: the loser of CREATE SCHEMA meets the winner's.
      if (sqlState(error) === "23505" || sqlState(error) === "42P06") return this.#create();
      this.#ready = null;
      throw error;
    });
    return this.#ready;
  }

  #create(): Promise<void> {
    return pooledTransaction(this.pool, async (client) => {
      // One process at a time creates the tables: CREATE ... IF NOT EXISTS races with itself.
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`agentloop memory ${this.schema}`]);
      await client.query(layout(this.schema));
    });
  }

  /** `work` in one transaction under the scope's advisory lock: one writer of a scope at a time. */
  #writing(name: string, work: (client: PgPoolClient) => Promise<void>): Promise<void> {
    return pooledTransaction(this.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
        `agentloop memory ${this.schema}/${name}`,
      ]);
      await work(client);
    });
  }

  async #value(db: PgQueryable, name: string, key: string): Promise<string | undefined> {
    const found = await db.query<{ value: string }>(
      `SELECT value FROM ${this.schema}.memories WHERE scope = $1 AND key = $2`,
      [name, key],
    );
    return found.rows[0]?.value;
  }

  /** Removes one memory and its terms, and takes it off its scope's counts (inside a write's transaction). */
  async #forget(client: PgQueryable, name: string, key: string): Promise<void> {
    const s = this.schema;
    const removed = await client.query<{ length: number }>(
      `DELETE FROM ${s}.memories WHERE scope = $1 AND key = $2 RETURNING length`,
      [name, key],
    );
    const before = removed.rows[0];
    if (before === undefined) return;
    await client.query(`DELETE FROM ${s}.memory_terms WHERE scope = $1 AND key = $2`, [name, key]);
    await this.#addToScope(client, name, -1, -before.length);
  }

  async #addToScope(client: PgQueryable, name: string, memories: number, length: number): Promise<void> {
    await client.query(
      `INSERT INTO ${this.schema}.memory_scopes (scope, memories, total_length) VALUES ($1, $2, $3)
       ON CONFLICT (scope) DO UPDATE SET memories = memory_scopes.memories + excluded.memories,
         total_length = memory_scopes.total_length + excluded.total_length`,
      [name, memories, length],
    );
  }
}
