import {
  type SpendWindows,
  type TotalsKeeper,
  type TotalsStep,
  WindowSpendLedger,
  type WindowTotals,
} from "@agentloop/core/store";
import type { SqliteDatabase, SqliteStatement } from "./sqlite-driver.js";

/**
 * Owners' spending in a store file: a `spending` table, one row per owner and window (a UTC day
 * `2026-12-07` or month `2026-12`), made when first used (a file without it reads as no spending).
 * A hold or a settle reads and writes an owner's rows in one immediate transaction, so processes
 * sharing the file never both pass a limit that only one of them fits.
 */
export class SqliteSpendLedger extends WindowSpendLedger {
  /** `writable` throws for a store opened read-only. */
  constructor(db: SqliteDatabase, writable: () => void) {
    super(new SqliteTotals(db, writable));
  }
}

interface Statements {
  readonly select: SqliteStatement<{ usd: number }>;
  readonly put: SqliteStatement<never>;
}

/** Each owner's totals as rows of the file's `spending` table, changed in an immediate transaction. */
class SqliteTotals implements TotalsKeeper {
  readonly #db: SqliteDatabase;
  readonly #writable: () => void;
  #statements: Statements | null = null;

  constructor(db: SqliteDatabase, writable: () => void) {
    this.#db = db;
    this.#writable = writable;
  }

  async update<T>(owner: string, windows: SpendWindows, step: (totals: WindowTotals) => TotalsStep<T>): Promise<T> {
    this.#writable();
    const { select, put } = this.#prepared();
    return this.#db.immediate((): T => {
      const totals = totalsOf(select, owner, windows);
      const { result, write } = step(totals);
      for (const [window, usd] of Object.entries(write ?? {})) {
        if (totals[window] !== usd) put.run(owner, window, usd);
      }
      return result;
    });
  }

  async read(owner: string, windows: SpendWindows): Promise<WindowTotals> {
    const exists = this.#db
      .prepare<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'spending'")
      .get();
    if (exists === undefined) return {};
    return totalsOf(this.#prepared().select, owner, windows);
  }

  #prepared(): Statements {
    if (this.#statements !== null) return this.#statements;
    this.#db.exec(
      "CREATE TABLE IF NOT EXISTS spending (owner TEXT NOT NULL, window TEXT NOT NULL, usd REAL NOT NULL, PRIMARY KEY (owner, window)) STRICT",
    );
    this.#statements = {
      select: this.#db.prepare<{ usd: number }>("SELECT usd FROM spending WHERE owner = ? AND window = ?"),
      put: this.#db.prepare(
        "INSERT INTO spending (owner, window, usd) VALUES (?, ?, ?) ON CONFLICT (owner, window) DO UPDATE SET usd = excluded.usd",
      ),
    };
    return this.#statements;
  }
}

/** The rows of `owner`'s windows that the file has. */
function totalsOf(select: SqliteStatement<{ usd: number }>, owner: string, windows: SpendWindows): WindowTotals {
  const totals: Record<string, number> = {};
  for (const window of [windows.day, windows.month]) {
    const row = select.get(owner, window);
    if (row !== undefined) totals[window] = row.usd;
  }
  return totals;
}
