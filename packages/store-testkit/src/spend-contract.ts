import type { SpendLedger } from "@agentloop/core/store";
import { describe, expect, it } from "vitest";

/**
 * Fresh storage for one test of the spending ledger: `open` gives a ledger over it, and each call
 * another object over the same storage (another process's view of one store, as far as one process can be).
 */
export interface SpendHarness {
  open(): SpendLedger;
  close?(): void | Promise<void>;
}

const DAY = new Date("2026-12-07T10:00:00Z");
const NEXT_DAY = new Date("2026-12-08T09:00:00Z");
const NEXT_MONTH = new Date("2027-01-01T00:00:00Z");

/**
 * The contract of an `EventStore.spending` ledger, for anyone who writes a store: holds are checked
 * and added at once, never past a limit; settling moves a hold to what was spent; owners, days and
 * months are counted apart; and holds made at once through several objects on one storage never pass
 * a limit together.
 */
export function describeSpendLedger(name: string, harness: () => SpendHarness): void {
  // A test gets a ledger over fresh storage, and `open` for more objects over the same storage.
  const withLedger = (test: (ledger: SpendLedger, open: () => SpendLedger) => Promise<void>) => async () => {
    const made = harness();
    try {
      await test(made.open(), () => made.open());
    } finally {
      await made.close?.();
    }
  };

  describe(`${name}: the spending ledger`, () => {
    it(
      "holds within the limits, and counts the hold in the day and the month",
      withLedger(async (ledger) => {
        expect(await ledger.spent("acme", DAY)).toEqual({ day: 0, month: 0 });
        const hold = await ledger.reserve("acme", 0.25, { costPerDay: 1, costPerMonth: 10 }, DAY);
        expect(hold).toEqual({ held: true, windows: { day: "2026-12-07", month: "2026-12" } });
        expect(await ledger.spent("acme", DAY)).toEqual({ day: 0.25, month: 0.25 });
      }),
    );

    it(
      "refuses a hold that would pass the day's limit, adding nothing, and names the window",
      withLedger(async (ledger) => {
        await ledger.reserve("acme", 0.75, { costPerDay: 1 }, DAY);
        expect(await ledger.reserve("acme", 0.5, { costPerDay: 1 }, DAY)).toEqual({
          held: false,
          window: "day",
          limit: 1,
          spent: 0.75,
        });
        expect(await ledger.spent("acme", DAY)).toEqual({ day: 0.75, month: 0.75 });
      }),
    );

    it(
      "counts the month across its days, and a new month afresh",
      withLedger(async (ledger) => {
        const limits = { costPerDay: 1, costPerMonth: 1.5 };
        await ledger.reserve("acme", 0.9, limits, DAY);
        const refused = await ledger.reserve("acme", 0.9, limits, NEXT_DAY);
        expect(refused).toMatchObject({ held: false, window: "month", limit: 1.5 });
        expect(await ledger.reserve("acme", 0.9, limits, NEXT_MONTH)).toMatchObject({ held: true });
        expect(await ledger.spent("acme", NEXT_DAY)).toEqual({ day: 0, month: 0.9 });
      }),
    );

    it(
      "settles a hold to what was spent, gives a hold back, and never counts below 0",
      withLedger(async (ledger) => {
        const hold = await ledger.reserve("acme", 0.5, {}, DAY);
        if (!hold.held) throw new Error("a hold without limits was refused");
        await ledger.settle("acme", hold.windows, -0.3);
        expect((await ledger.spent("acme", DAY)).day).toBeCloseTo(0.2, 12);
        await ledger.settle("acme", hold.windows, -5);
        expect(await ledger.spent("acme", DAY)).toEqual({ day: 0, month: 0 });
      }),
    );

    it(
      "keeps each owner's spending apart",
      withLedger(async (ledger) => {
        await ledger.reserve("acme", 0.9, { costPerDay: 1 }, DAY);
        expect(await ledger.reserve("globex", 0.9, { costPerDay: 1 }, DAY)).toMatchObject({ held: true });
        expect(await ledger.spent("initech", DAY)).toEqual({ day: 0, month: 0 });
      }),
    );

    it(
      "holds made at once through several objects on one storage never pass the limit together",
      withLedger(async (ledger, open) => {
        const ledgers = [ledger, open(), open()];
        const holds = await Promise.all(
          Array.from({ length: 30 }, (_, index) =>
            (ledgers[index % ledgers.length] as SpendLedger).reserve("acme", 0.1, { costPerDay: 1 }, DAY),
          ),
        );
        expect(holds.filter((hold) => hold.held)).toHaveLength(10);
        expect((await open().spent("acme", DAY)).day).toBeCloseTo(1, 9);
      }),
    );
  });
}
