import {
  type SpendWindows,
  type TotalsKeeper,
  type TotalsStep,
  WindowSpendLedger,
  type WindowTotals,
} from "@agentloop/core/store";
import type { PgPool, PgQueryable } from "./pg-types.js";
import { pooledTransaction } from "./transaction.js";

/**
 * Owners' spending in a store's schema: the `spending` table, one row per owner and window (a UTC
 * day `2026-12-07` or month `2026-12`). A hold or a settle reads and writes an owner's rows in one
 * transaction under an advisory lock of the owner, so processes and machines sharing the schema
 * never both pass a limit that only one of them fits.
 */
export class PostgresSpendLedger extends WindowSpendLedger {
  /** `opened` makes sure the schema's tables exist. */
  constructor(pool: PgPool, schema: string, opened: () => Promise<void>) {
    super(new PostgresTotals(pool, schema, opened));
  }
}

/** Each owner's totals as rows of the schema's `spending` table, changed under the owner's advisory lock. */
class PostgresTotals implements TotalsKeeper {
  readonly #pool: PgPool;
  readonly #schema: string;
  readonly #opened: () => Promise<void>;

  constructor(pool: PgPool, schema: string, opened: () => Promise<void>) {
    this.#pool = pool;
    this.#schema = schema;
    this.#opened = opened;
  }

  async update<T>(owner: string, windows: SpendWindows, step: (totals: WindowTotals) => TotalsStep<T>): Promise<T> {
    await this.#opened();
    return pooledTransaction(this.#pool, async (client): Promise<T> => {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
        `agentloop spending ${this.#schema}/${owner}`,
      ]);
      const totals = await this.#totals(client, owner, windows);
      const { result, write } = step(totals);
      const changed = Object.entries(write ?? {}).filter(([window, usd]) => totals[window] !== usd);
      if (changed.length > 0) {
        await client.query(
          `INSERT INTO ${this.#schema}.spending (owner, "window", usd)
           SELECT $1, w, usd FROM unnest($2::text[], $3::double precision[]) AS changed(w, usd)
           ON CONFLICT (owner, "window") DO UPDATE SET usd = EXCLUDED.usd`,
          [owner, changed.map(([window]) => window), changed.map(([, usd]) => usd)],
        );
      }
      return result;
    });
  }

  async read(owner: string, windows: SpendWindows): Promise<WindowTotals> {
    await this.#opened();
    return this.#totals(this.#pool, owner, windows);
  }

  async #totals(db: PgQueryable, owner: string, windows: SpendWindows): Promise<WindowTotals> {
    const rows = await db.query<{ window: string; usd: number }>(
      `SELECT "window", usd FROM ${this.#schema}.spending WHERE owner = $1 AND "window" = ANY($2)`,
      [owner, [windows.day, windows.month]],
    );
    return Object.fromEntries(rows.rows.map((row) => [row.window, row.usd]));
  }
}
