import {
  passedLimit,
  type SpendHold,
  type SpendLedger,
  type SpendLimits,
  type SpendTotals,
  type SpendWindows,
  spendWindows,
} from "@agentloop/core/store";
import type { PgPool, PgQueryable } from "./pg-types.js";
import { pooledTransaction } from "./transaction.js";

/**
 * Owners' spending in a store's schema: the `spending` table, one row per owner and window (a UTC
 * day `2026-12-07` or month `2026-12`). A hold is checked and added in one transaction under an
 * advisory lock of the owner, so processes and machines sharing the schema never both pass a limit
 * that only one of them fits; a settle is one statement.
 */
export class PostgresSpendLedger implements SpendLedger {
  readonly #pool: PgPool;
  readonly #schema: string;
  readonly #opened: () => Promise<void>;

  /** `opened` makes sure the schema's tables exist. */
  constructor(pool: PgPool, schema: string, opened: () => Promise<void>) {
    this.#pool = pool;
    this.#schema = schema;
    this.#opened = opened;
  }

  async reserve(owner: string, amount: number, limits: SpendLimits, at: Date): Promise<SpendHold> {
    await this.#opened();
    const windows = spendWindows(at);
    return pooledTransaction(this.#pool, async (client): Promise<SpendHold> => {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
        `agentloop spending ${this.#schema}/${owner}`,
      ]);
      const passed = passedLimit(await this.#totals(client, owner, windows), amount, limits);
      if (passed === null) await this.#add(client, owner, windows, amount);
      return passed ?? { held: true, windows };
    });
  }

  async settle(owner: string, windows: SpendWindows, amount: number): Promise<void> {
    await this.#opened();
    await this.#add(this.#pool, owner, windows, amount);
  }

  async spent(owner: string, at: Date): Promise<SpendTotals> {
    await this.#opened();
    return this.#totals(this.#pool, owner, spendWindows(at));
  }

  async #totals(db: PgQueryable, owner: string, windows: SpendWindows): Promise<SpendTotals> {
    const rows = await db.query<{ window: string; usd: number }>(
      `SELECT "window", usd FROM ${this.#schema}.spending WHERE owner = $1 AND "window" = ANY($2)`,
      [owner, [windows.day, windows.month]],
    );
    const usd = (window: string) => rows.rows.find((row) => row.window === window)?.usd ?? 0;
    return { day: usd(windows.day), month: usd(windows.month) };
  }

  /** Adds `amount` to both windows; never below 0 (a hold given back after a window was cleared by hand leaves it at 0). */
  async #add(db: PgQueryable, owner: string, windows: SpendWindows, amount: number): Promise<void> {
    await db.query(
      `INSERT INTO ${this.#schema}.spending (owner, "window", usd)
       SELECT $1, w, GREATEST($3::double precision, 0) FROM unnest($2::text[]) AS w
       ON CONFLICT (owner, "window") DO UPDATE SET usd = GREATEST(${this.#schema}.spending.usd + $3::double precision, 0)`,
      [owner, [windows.day, windows.month], amount],
    );
  }
}
