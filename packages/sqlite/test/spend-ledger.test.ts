import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { describeSpendLedger } from "@agentloop/store-testkit";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { describe, expect, it, onTestFinished } from "vitest";
import { SqliteEventStore } from "../src/index.js";

// The spending ledger's contract on a store file, and holds from two processes at once on one
// store: the children load the BUILT dist of core and of this package, so build both first.

describeSpendLedger("SqliteEventStore", () => {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-spending-"));
  const stores: SqliteEventStore[] = [];
  return {
    open() {
      const store = new SqliteEventStore(join(directory, "runs.db"));
      stores.push(store);
      return store.spending;
    },
    close() {
      for (const store of stores) store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});

const run = promisify(execFile);
const SQLITE = pathToFileURL(join(import.meta.dirname, "..", "dist", "index.js")).href;
const JSONL = import.meta.resolve("@agentloop/core/jsonl-store");

/** A process that makes 20 holds of $0.10 for one owner under a $1 daily ceiling, and prints how many were held. */
const CHILD = `
const [kind, path, module] = process.argv.slice(1);
const stores = await import(module);
const store = kind === "sqlite" ? new stores.SqliteEventStore(path) : new stores.JsonlEventStore(path);
let held = 0;
for (let i = 0; i < 20; i++) {
  const hold = await store.spending.reserve("acme", 0.1, { costPerDay: 1 }, new Date("2026-12-07T10:00:00Z"));
  if (hold.held) held++;
}
process.stdout.write(String(held));
`;

describe("holds from two processes at once on one store never pass the ceiling together", () => {
  it.each([
    ["SqliteEventStore", "sqlite", SQLITE],
    ["JsonlEventStore", "jsonl", JSONL],
  ])("%s", async (_name, kind, module) => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-spending-"));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const path = kind === "sqlite" ? join(directory, "runs.db") : directory;
    const children = [0, 1].map(() =>
      run(process.execPath, ["--input-type=module", "-e", CHILD, kind, path, module], { timeout: hangGuard(60_000) }),
    );
    const held = (await Promise.all(children)).map(({ stdout }) => Number(stdout));
    expect(held.reduce((sum, each) => sum + each, 0)).toBe(10);
    const store = kind === "sqlite" ? new SqliteEventStore(path) : new JsonlEventStore(path);
    expect((await store.spending.spent("acme", new Date("2026-12-07T12:00:00Z"))).day).toBeCloseTo(1, 9);
    if (store instanceof SqliteEventStore) store.close();
  });
});
