import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  passedLimit,
  type SpendHold,
  type SpendLedger,
  type SpendLimits,
  type SpendTotals,
  type SpendWindows,
  sha256Hex,
  spendWindows,
} from "../log/index.js";
import { readLockFile, sweepLockFile, tryLockFile, unlockFile } from "./lock-file.js";

/** How long a process waits for another to finish its step on one owner's totals before it gives up. */
const LOCK_WAIT_MS = 10_000;

/**
 * Owners' spending in a JSONL store's folder: one small file per owner
 * (`<directory>/.spending/<sha256 of the owner>.json`, `{ owner, totals: { "2026-12-07": usd, "2026-12": usd } }`),
 * read and rewritten (by a rename) under a lock file of its own, so that the processes sharing the
 * folder hold and settle one at a time. A `.` name: never taken for a run's log.
 */
export class JsonlSpendLedger implements SpendLedger {
  readonly #folder: string;

  constructor(directory: string) {
    this.#folder = join(directory, ".spending");
  }

  reserve(owner: string, amount: number, limits: SpendLimits, at: Date): Promise<SpendHold> {
    const windows = spendWindows(at);
    return this.#locked<SpendHold>(owner, (totals) => {
      const passed = passedLimit(totalsIn(totals, windows), amount, limits);
      if (passed !== null) return { result: passed };
      return { result: { held: true, windows }, write: added(totals, windows, amount) };
    });
  }

  settle(owner: string, windows: SpendWindows, amount: number): Promise<void> {
    return this.#locked(owner, (totals) => ({ result: undefined, write: added(totals, windows, amount) }));
  }

  async spent(owner: string, at: Date): Promise<SpendTotals> {
    return totalsIn(this.#read(this.#path(owner)), spendWindows(at));
  }

  async #locked<T>(
    owner: string,
    step: (totals: Record<string, number>) => { result: T; write?: Record<string, number> },
  ): Promise<T> {
    mkdirSync(this.#folder, { recursive: true });
    const path = this.#path(owner);
    const lockPath = `${path}.lock`;
    const token = await this.#lock(lockPath, owner);
    try {
      const { result, write } = step(this.#read(path));
      if (write !== undefined) {
        const temp = `${path}.${process.pid}.tmp`;
        writeFileSync(temp, JSON.stringify({ owner, totals: write }));
        renameSync(temp, path);
      }
      return result;
    } finally {
      unlockFile(lockPath, token);
    }
  }

  async #lock(lockPath: string, owner: string): Promise<string> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    sweepLockFile(lockPath);
    for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
      const attempt = tryLockFile(lockPath);
      if ("token" in attempt) return attempt.token;
      if (Date.now() > deadline) {
        const holder = readLockFile(lockPath);
        throw new Error(
          `the spending of '${owner}' stayed locked for ${LOCK_WAIT_MS / 1000} s (${lockPath}${holder ? `, held by process ${holder.pid} on ${holder.host}` : ""})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  #read(path: string): Record<string, number> {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw error;
    }
    const { totals } = JSON.parse(text) as { totals?: Record<string, number> };
    return totals ?? {};
  }

  #path(owner: string): string {
    return join(this.#folder, `${sha256Hex(new TextEncoder().encode(owner))}.json`);
  }
}

function totalsIn(totals: Record<string, number>, windows: SpendWindows): SpendTotals {
  return { day: totals[windows.day] ?? 0, month: totals[windows.month] ?? 0 };
}

function added(totals: Record<string, number>, windows: SpendWindows, amount: number): Record<string, number> {
  const next = { ...totals };
  for (const window of [windows.day, windows.month]) next[window] = Math.max(0, (next[window] ?? 0) + amount);
  return next;
}
