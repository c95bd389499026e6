import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** One line of the service's ledger: a model call or a real tool execution starting or ending, or a step prepared. */
export interface LedgerEntry {
  readonly pid: number;
  readonly kind: "model-start" | "model-end" | "tool-start" | "tool-end" | "prepare";
  /** The run's reference (its id). */
  readonly ref: string;
  /** `step N` for a model call or a step prepared, the tool's name for a tool. */
  readonly key: string;
}

/** The ledger file the service processes append to. */
export class Ledger {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
    writeFileSync(path, "");
  }

  entries(): LedgerEntry[] {
    if (!existsSync(this.path)) return [];
    return readFileSync(this.path, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as LedgerEntry);
  }

  /** How many entries of `kind` the run `ref` has for `key`. */
  count(ref: string, kind: LedgerEntry["kind"], key: string): number {
    return this.entries().filter((entry) => entry.ref === ref && entry.kind === kind && entry.key === key).length;
  }

  /** Whether the run `ref` has an entry of `kind` for `key`. */
  has(ref: string, kind: LedgerEntry["kind"], key: string): boolean {
    return this.count(ref, kind, key) > 0;
  }
}
