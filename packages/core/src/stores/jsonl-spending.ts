import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type SpendLedger,
  type SpendWindows,
  sha256Hex,
  type TotalsKeeper,
  type TotalsStep,
  WindowSpendLedger,
  type WindowTotals,
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
export function jsonlSpendLedger(directory: string): SpendLedger {
  return new WindowSpendLedger(new JsonlTotals(directory));
}

/** Each owner's totals as a file of the folder, changed under the file's lock. */
class JsonlTotals implements TotalsKeeper {
  readonly #folder: string;

  constructor(directory: string) {
    this.#folder = join(directory, ".spending");
  }

  async read(owner: string): Promise<WindowTotals> {
    return this.#read(this.#path(owner));
  }

  async update<T>(owner: string, _windows: SpendWindows, step: (totals: WindowTotals) => TotalsStep<T>): Promise<T> {
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

  #read(path: string): WindowTotals {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw error;
    }
    const { totals } = JSON.parse(text) as { totals?: WindowTotals };
    return totals ?? {};
  }

  #path(owner: string): string {
    return join(this.#folder, `${sha256Hex(new TextEncoder().encode(owner))}.json`);
  }
}
