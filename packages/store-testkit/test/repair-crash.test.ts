import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { MemoryEventStore } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { Journal } from "@agentloop/core/machine";
import type { StoredEvent } from "@agentloop/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hangGuard } from "../src/hang-guard.js";
import { sampleLog } from "../src/index.js";

// slow: it kills a repairing process at points spread over a large log.

// Repair is crash-safe: a child (fixtures/repair-child.mjs, on the BUILT core) repairs a large log
// with a torn last line and is SIGKILLed at points spread over the whole repair. Whenever it died,
// the file is the old log or the repaired one: no intact event is ever lost.

const CHILD = join(import.meta.dirname, "..", "fixtures", "repair-child.mjs");
const EVENTS = 60_000;
const TRIALS = 30;
const RUN_ID = "large";

/** A long log as the journal writes it: the sample run's start, then tool calls and results. */
async function longLog(): Promise<StoredEvent[]> {
  const store = new MemoryEventStore();
  // Schema 1, as the sample's start says: no hash chain, whose cost is core's, not the store's.
  const journal = new Journal(store, RUN_ID, [], { schemaVersion: 1 });
  const [started] = sampleLog();
  if (started?.type !== "run.started") throw new Error("the sample starts with run.started");
  const { seq: _seq, at: _at, ...start } = started;
  await journal.commit(start);
  for (let index = 1; index < EVENTS; index += 2) {
    // Two events per call: the log ends up EVENTS + 1 events long, run.started included.
    const callId = `call-${index}`;
    await journal.commit({ type: "tool.started", callId, name: "get_weather" });
    await journal.commit({
      type: "tool.finished",
      callId,
      content: `{"city":"Pune","celsius":30,"n":${index}}`.padEnd(200, " "),
    });
  }
  return store.read(RUN_ID);
}

/**
 * When trial `n` kills the child, as a fraction of a whole repair: a third spread over all of it,
 * the rest packed into its last quarter and just past it, where the repaired log is written.
 */
function killPoint(n: number): number {
  const early = Math.floor(TRIALS / 3);
  return n < early ? (n + 0.5) / early : 0.75 + (0.35 * (n - early + 0.5)) / (TRIALS - early);
}

/** Runs the child on `directory`; kills it `killAfterMs` after it said "ready" (never, when undefined). */
function repairIn(directory: string, killAfterMs?: number): Promise<{ killed: boolean; ms: number | null }> {
  const child = spawn(process.execPath, [CHILD], {
    env: { ...process.env, REPAIR_DIR: directory, REPAIR_RUN: RUN_ID },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let ms: number | null = null;
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (line === "ready" && killAfterMs !== undefined) setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    if (line.startsWith("repaired ")) ms = Number(line.split(" ")[2]);
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (_code, signal) => resolve({ killed: signal === "SIGKILL", ms }));
  });
}

describe("repair killed at any point loses no intact event", () => {
  const root = mkdtempSync(join(tmpdir(), "agentloop-repair-"));
  const damaged = join(root, "damaged.jsonl");
  let events: StoredEvent[] = [];
  let repaired = Buffer.alloc(0);
  let old = Buffer.alloc(0);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  beforeAll(async () => {
    events = await longLog();
    repaired = Buffer.from(events.map((event) => `${JSON.stringify(event)}\n`).join(""));
    old = Buffer.concat([
      repaired,
      Buffer.from(`{"seq":${events.length},"at":"2026-01-02T03:04:05.000Z","type":"tool.sta`),
    ]);
    writeFileSync(damaged, old);
  }, hangGuard(60_000));

  it(`${TRIALS} children SIGKILLed across a repair of ${EVENTS.toLocaleString("en")} events: the file is always the old or the repaired log`, {
    // 30 processes each loading core and a 60,000-event log: minutes' worth of CPU on a loaded 2-core machine.
    timeout: hangGuard(300_000),
  }, async () => {
    const trial = (index: number) => {
      const directory = join(root, `trial-${index}`);
      mkdirSync(directory);
      copyFileSync(damaged, join(directory, `${RUN_ID}.jsonl`));
      return directory;
    };
    // How long a whole repair takes here, from "ready" to done: the kills are spread over it.
    const whole = await repairIn(trial(-1));
    expect(whole.ms).toBeGreaterThan(0);
    let span = whole.ms ?? 0;
    let killed = 0;
    let last = "";
    for (let index = 0; index < TRIALS; index += 2) {
      const outcomes = await Promise.all(
        [index, index + 1].map(async (n) => {
          const directory = trial(n);
          const outcome = await repairIn(directory, killPoint(n) * span);
          return { directory, ...outcome };
        }),
      );
      for (const { directory, killed: wasKilled, ms } of outcomes) {
        if (wasKilled) killed++;
        // A repair that finished first ran faster than the measured one (the machine got quieter):
        // the next kills are spread over the shorter time, so that they still land inside a repair.
        else if (ms !== null && ms > 0) span = Math.min(span, ms);
        // Byte for byte the old log (torn last line and all) or the repaired one: nothing between.
        const file = readFileSync(join(directory, `${RUN_ID}.jsonl`));
        expect(file.equals(old) || file.equals(repaired), directory).toBe(true);
        const left = readdirSync(directory).filter((name) => name !== `${RUN_ID}.jsonl`);
        // What a crash may leave: the dead child's lock, its hidden temp of a lock or of the repaired log.
        const leftovers = [`${RUN_ID}.jsonl.lock`, `.${RUN_ID}.jsonl.repair`, `.${RUN_ID}.jsonl.lock.`];
        expect(
          left.filter((name) => !leftovers.some((kind) => name.startsWith(kind))),
          directory,
        ).toEqual([]);
        last = directory;
      }
    }
    // A repair after the crash finishes the job, taking over the dead child's lock.
    const store = new JsonlEventStore(last);
    await store.repair(RUN_ID);
    expect(await store.read(RUN_ID)).toEqual(events);
    expect(readdirSync(last)).toEqual([`${RUN_ID}.jsonl`]);
    expect(killed).toBeGreaterThan(TRIALS / 2);
  });
});
