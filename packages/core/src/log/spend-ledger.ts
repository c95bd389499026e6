/**
 * What an owner (a tenant of a served agent) has spent, kept in the store beside the runs' logs
 * so that a ceiling across runs is checked in O(1) before each model call, by every process that
 * shares the store. A call holds its most possible cost before it is made (`reserve`), and the
 * difference to what the provider billed is settled after it (`settle`): a process that dies in
 * between leaves its hold counted, so a ceiling errs on the side of spending less.
 */

/** The ceilings an owner is held to, in USD; an absent one does not limit. */
export interface SpendLimits {
  readonly costPerDay?: number | undefined;
  readonly costPerMonth?: number | undefined;
}

/** The windows one call's spending counts in: its UTC day (`2026-12-07`) and month (`2026-12`). */
export interface SpendWindows {
  readonly day: string;
  readonly month: string;
}

/** What an owner has spent (and holds for calls in flight) in a day and a month, in USD. */
export interface SpendTotals {
  readonly day: number;
  readonly month: number;
}

/** A ceiling's answer to a call: held (in these windows), or refused with the window it would have passed. */
export type SpendHold =
  | { readonly held: true; readonly windows: SpendWindows }
  | { readonly held: false; readonly window: "day" | "month"; readonly limit: number; readonly spent: number };

/**
 * Running totals of spending per owner, shared by every process on one store. `reserve` must be
 * atomic: two processes holding for one owner at once never both pass a limit that only one fits.
 */
export interface SpendLedger {
  /** Adds `amount` USD to `owner`'s day and month of `at` unless it would pass a limit; then adds nothing and names the window. */
  reserve(owner: string, amount: number, limits: SpendLimits, at: Date): Promise<SpendHold>;
  /** Adds `amount` USD (less than 0: gives it back) to `owner`'s spending in the windows a hold was made in. */
  settle(owner: string, windows: SpendWindows, amount: number): Promise<void>;
  /** What `owner` has spent (and holds) in the day and the month of `at`. */
  spent(owner: string, at: Date): Promise<SpendTotals>;
}

/** The UTC day and month `at` falls in. */
export function spendWindows(at: Date): SpendWindows {
  const day = at.toISOString().slice(0, 10);
  return { day, month: day.slice(0, 7) };
}

/**
 * Whether `amount` more fits an owner's `totals` under `limits`: the window it would pass (the day
 * first), or null. A store's `reserve` decides with this inside its own atomic step.
 */
export function passedLimit(
  totals: SpendTotals,
  amount: number,
  limits: SpendLimits,
): Extract<SpendHold, { held: false }> | null {
  const { costPerDay, costPerMonth } = limits;
  if (costPerDay !== undefined && totals.day + amount > costPerDay) {
    return { held: false, window: "day", limit: costPerDay, spent: totals.day };
  }
  if (costPerMonth !== undefined && totals.month + amount > costPerMonth) {
    return { held: false, window: "month", limit: costPerMonth, spent: totals.month };
  }
  return null;
}

/** Checks limits given by a user: each absent, or a number of USD, 0 or more. */
export function checkSpendLimits(limits: SpendLimits, where: string): void {
  for (const [name, value] of Object.entries(limits)) {
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`${where}: ${name} must be a number of USD, 0 or more (got ${String(value)})`);
    }
  }
}

/** An owner's spending as a ledger keeps it: USD by window, `{ "2026-12-07": 1.5, "2026-12": 4 }`. */
export type WindowTotals = Readonly<Record<string, number>>;

/** What one step on an owner's totals answers, and the totals it keeps instead (absent: they stay). */
export interface TotalsStep<T> {
  readonly result: T;
  readonly write?: WindowTotals;
}

/**
 * Where a ledger keeps each owner's totals: `update` runs a step on them atomically, `read` reads
 * them. Both are given the windows the step looks at (and may change); a keeper gives at least
 * those, so that one keeping a row per window reads two rows, not an owner's whole history.
 */
export interface TotalsKeeper {
  update<T>(owner: string, windows: SpendWindows, step: (totals: WindowTotals) => TotalsStep<T>): Promise<T>;
  read(owner: string, windows: SpendWindows): Promise<WindowTotals>;
}

/**
 * A ledger over each owner's `WindowTotals`, kept by `keeper`: a hold is decided and added in one
 * step, so it is as atomic as the keeper's `update`. A store's ledger class extends it with its keeper.
 */
export class WindowSpendLedger implements SpendLedger {
  readonly #keeper: TotalsKeeper;

  constructor(keeper: TotalsKeeper) {
    this.#keeper = keeper;
  }

  reserve(owner: string, amount: number, limits: SpendLimits, at: Date): Promise<SpendHold> {
    const windows = spendWindows(at);
    return this.#keeper.update<SpendHold>(owner, windows, (totals) => {
      const passed = passedLimit(totalsIn(totals, windows), amount, limits);
      if (passed !== null) return { result: passed };
      return { result: { held: true, windows }, write: added(totals, windows, amount) };
    });
  }

  settle(owner: string, windows: SpendWindows, amount: number): Promise<void> {
    return this.#keeper.update(owner, windows, (totals) => ({
      result: undefined,
      write: added(totals, windows, amount),
    }));
  }

  async spent(owner: string, at: Date): Promise<SpendTotals> {
    const windows = spendWindows(at);
    return totalsIn(await this.#keeper.read(owner, windows), windows);
  }
}

function totalsIn(totals: WindowTotals, windows: SpendWindows): SpendTotals {
  return { day: totals[windows.day] ?? 0, month: totals[windows.month] ?? 0 };
}

function added(totals: WindowTotals, windows: SpendWindows, amount: number): WindowTotals {
  const next = { ...totals };
  for (const window of [windows.day, windows.month]) next[window] = Math.max(0, (next[window] ?? 0) + amount);
  return next;
}

/** A ledger in this process's memory: for `MemoryEventStore`, tests, and a single process. */
export class MemorySpendLedger extends WindowSpendLedger {
  constructor() {
    const totals = new Map<string, WindowTotals>();
    super({
      update: async (owner, _windows, step) => {
        const { result, write } = step(totals.get(owner) ?? {});
        if (write !== undefined) totals.set(owner, write);
        return result;
      },
      read: async (owner) => totals.get(owner) ?? {},
    });
  }
}
