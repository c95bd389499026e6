import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteEventStore } from "../src/index.js";

// Group commit loses nothing it acknowledged: a child (fixtures/load-child.mjs, on the BUILT
// packages) logs 100 runs at once and is SIGKILLed mid-stream; every event it was told was
// appended is in the file, and every run's log is whole.

const CHILD = join(import.meta.dirname, "fixtures", "load-child.mjs");
const MODULE = pathToFileURL(join(import.meta.dirname, "..", "dist", "index.js")).href;

/** Lines acknowledged so far. */
function acks(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").slice(0, -1) : [];
}

describe("SqliteEventStore under load, SIGKILLed", () => {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-load-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  for (const [trial, atLeast] of [500, 2000, 5000].entries()) {
    it(`keeps every acknowledged event of 100 concurrent runs, killed after ${atLeast.toLocaleString("en")} or more`, async () => {
      const db = join(directory, `load-${trial}.db`);
      const ackFile = join(directory, `acks-${trial}.txt`);
      const child = spawn(process.execPath, [CHILD], {
        env: { ...process.env, LOAD_DB: db, LOAD_ACKS: ackFile, LOAD_MODULE: MODULE },
        stdio: ["ignore", "ignore", "inherit"],
      });
      let gone = false;
      const exited = new Promise((resolve) => child.once("exit", resolve)).then(() => {
        gone = true;
      });
      while (acks(ackFile).length < atLeast && !gone) await sleep(5);
      expect(gone, "the child died before it was killed").toBe(false);
      child.kill("SIGKILL");
      await exited;
      const acknowledged = acks(ackFile);
      const store = new SqliteEventStore(db, { readonly: true });
      try {
        const lengths = new Map((await store.list()).map((run) => [run.runId, run.events]));
        for (const line of acknowledged) {
          const [runId, seq] = line.split(" ");
          expect(lengths.get(runId ?? "") ?? 0, line).toBeGreaterThan(Number(seq));
        }
        for (const runId of lengths.keys()) {
          const events = await store.read(runId);
          expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index));
        }
      } finally {
        store.close();
      }
    });
  }
});
