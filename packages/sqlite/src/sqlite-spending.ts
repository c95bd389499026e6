import {
  passedLimit,
  type SpendHold,
  type SpendLedger,
  type SpendLimits,
  type SpendTotals,
  type SpendWindows,
  spendWindows,
} from "@agentloop/core/store";
import type { SqliteDatabase, SqliteStatement } from "./sqlite-driver.js";

/**
 * Owners' spending in a store file: a `spending` table, one row per owner and window (a UTC day
 * `2026-12-07` or month `2026-12`), made when first used (a file without it reads as no spending).
 * A hold is checked and added in one immediate transaction, so processes sharing the file never
 * both pass a limit that only one of them fits.
 */
export class SqliteSpendLedger implements SpendLedger {
  readonly #db: SqliteDatabase;
  readonly #writable: () => void;
  #statements: { select: SqliteStatement<{ usd: number }>; add: SqliteStatement<never> } | null = null;

  /** `writable` throws for a store opened read-only. */
  constructor(db: SqliteDatabase, writable: () => void) {
    this.#db = db;
    this.#writable = writable;
  }

  async reserve(owner: string, amount: number, limits: SpendLimits, at: Date): Promise<SpendHold> {
    this.#writable();
    const { select, add } = this.#prepared();
    const windows = spendWindows(at);
    return this.#db.immediate((): SpendHold => {
      const passed = passedLimit(totalsOf(select, owner, windows), amount, limits);
      if (passed !== null) return passed;
      for (const window of [windows.day, windows.month]) add.run(owner, window, amount, amount);
      return { held: true, windows };
    });
  }

  async settle(owner: string, windows: SpendWindows, amount: number): Promise<void> {
    this.#writable();
    const { add } = this.#prepared();
    this.#db.immediate(() => {
      for (const window of [windows.day, windows.month]) add.run(owner, window, amount, amount);
    });
  }

  async spent(owner: string, at: Date): Promise<SpendTotals> {
    const exists = this.#db
      .prepare<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'spending'")
      .get();
    if (exists === undefined) return { day: 0, month: 0 };
    return totalsOf(this.#prepared().select, owner, spendWindows(at));
  }

  #prepared(): { select: SqliteStatement<{ usd: number }>; add: SqliteStatement<never> } {
    if (this.#statements !== null) return this.#statements;
    this.#db.exec(
      "CREATE TABLE IF NOT EXISTS spending (owner TEXT NOT NULL, window TEXT NOT NULL, usd REAL NOT NULL, PRIMARY KEY (owner, window)) STRICT",
    );
    this.#statements = {
      select: this.#db.prepare<{ usd: number }>("SELECT usd FROM spending WHERE owner = ? AND window = ?"),
      // Never below 0: a hold given back after a window was cleared by hand leaves it at 0.
      add: this.#db.prepare(
        "INSERT INTO spending (owner, window, usd) VALUES (?, ?, MAX(?, 0)) ON CONFLICT (owner, window) DO UPDATE SET usd = MAX(usd + ?, 0)",
      ),
    };
    return this.#statements;
  }
}

function totalsOf(select: SqliteStatement<{ usd: number }>, owner: string, windows: SpendWindows): SpendTotals {
  return { day: select.get(owner, windows.day)?.usd ?? 0, month: select.get(owner, windows.month)?.usd ?? 0 };
}
