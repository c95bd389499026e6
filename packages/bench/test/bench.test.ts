import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { SqliteEventStore } from "@agentloop/sqlite";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const compactionMain = fileURLToPath(new URL("../dist/compaction-main.js", import.meta.url));
const probe = new SqliteEventStore(":memory:");
const sqliteDriver = probe.driver;
probe.close();

// The bench is a command, not a test: this only checks that it still runs, at its tiny size, and
// prints every metric. No number it prints is asserted.
describe("pnpm bench --tiny", () => {
  it("exits 0 and prints every metric row", { timeout: hangGuard(120_000) }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", main, "--tiny"], {
      maxBuffer: 1 << 20,
    });
    const rows = [
      "| version |",
      "| happy path (3 steps), µs per run |",
      "| per step, 5 steps |",
      "| per step, 10 steps |",
      "| growth 5→10 steps",
      "| live heap after a 10-step run |",
      "| 10 concurrent 5-step runs, 20 ms per model call",
      "| replay of a 10-step log",
      "| resume of a 10-step log",
      "| store MemoryEventStore,",
      "| store JsonlEventStore (temp dir, durability event),",
      "| store JsonlEventStore (temp dir, durability batch),",
      "| store JsonlEventStore (temp dir, durability none),",
      // The SQLite rows name the driver the store ran on.
      `| store SqliteEventStore (temp file, ${sqliteDriver}),`,
      `| SqliteEventStore (temp file, ${sqliteDriver}) |`,
      "| event store | appends/s, 5 runs at once | µs per append, first 10 of a 60-event log |",
      "| JsonlEventStore (temp dir, durability none) |",
      "| SQLite ≥ 20,000 appended events/s under 5 concurrent runs |",
      "| SQLite appends flat with log length (last ÷ first ≤ 1.3×) |",
      // Measured, or "not measured: <why>" where the Restate server cannot start.
      "| per step, 5 steps: on Restate, and runAgent in one process |",
      "| per step, 10 steps: on Restate, and runAgent in one process |",
      "| 10 concurrent 5-step runs, 20 ms per model call, 1 service process: wall (÷ ideal 100 ms) |",
      "| 10 concurrent 5-step runs, 20 ms per model call, 2 service processes: wall (÷ ideal 100 ms) |",
      "| per step, 20 steps |",
      "| per step, 40 steps |",
      "| growth 5→40 steps |",
      "| a reply of three 5 ms calls, then the answer: wall (÷ the slowest call) |",
      "| 20 concurrent 5-step runs, 20 ms per model call: wall (÷ ideal 100 ms) |",
      "| 20 concurrent 5-step runs, 20 ms per model call: peak heap above the start |",
      "| per step ≤ 8× the floor at every length |",
      "| growth 5→40 steps ≤ 1.3× |",
      "| happy path ≤ 8× the floor |",
      "| 20 concurrent runs ≤ 5× the ideal wall time |",
      "| 20 concurrent runs: peak heap ≤ 2× the floor's |",
      "| a reply of three 5 ms calls ≤ 1.2× the slowest call |",
      "| replay ≥ 150,000 events/s |",
      "| resume ≤ 0.5× a live run of the same length |",
      "| validation, spec subset (3 scalars) |",
      "| validation, nested JSON Schema ($ref, 2 filters) |",
      "| validation, zod 4, the same schema |",
      "| pattern, native check of ^(a+)+$, 10 a's and '!' |",
      "| pattern, register ^(a+)+$ | refused |",
      "| pattern, re2js, the same semver check |",
    ];
    for (const row of rows) expect(stdout).toContain(row);
    const header = stdout.split("\n").find((line) => line.startsWith("| metric |"));
    for (const harness of ["plain loop (floor)", "agentloop", "Vercel AI SDK", "OpenAI Agents SDK", "LangGraph.js"]) {
      expect(header).toContain(harness);
    }
    expect(stdout).not.toMatch(/\bNaN\b/);
  });
});

describe("pnpm --filter @agentloop/bench bench:compaction --tiny", () => {
  it("exits 0 and prints the tokens of each run and the cost per step side by side", {
    timeout: hangGuard(60_000),
  }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [compactionMain, "--tiny"], { maxBuffer: 1 << 20 });
    for (const row of ["| no compaction |", "| trim |", "| summarize (scripted summarizer) |"]) {
      expect(stdout).toContain(row);
    }
    expect(stdout).toContain("| per step, 40 steps (median of 1) |");
    // Both strategies compacted at least once: the bench measures what it says.
    const compactions = [...stdout.matchAll(/^\| (?:trim|summarize[^|]*) \|(?:[^|]*\|){5} (\d+) \|/gm)].map(
      (m) => m[1],
    );
    expect(compactions).toHaveLength(2);
    for (const value of compactions) expect(Number(value)).toBeGreaterThan(0);
    expect(stdout).not.toMatch(/\bNaN\b/);
  });
});

describe("pnpm --filter @agentloop/bench bench:memory --tiny", () => {
  it("exits 0 and prints a turn without memory and with each store, lexical and embedded", {
    timeout: hangGuard(120_000),
  }, async () => {
    const memoryMain = fileURLToPath(new URL("../dist/memory-main.js", import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [memoryMain, "--tiny"], { maxBuffer: 1 << 20 });
    for (const row of [
      "| no memory |",
      "| InMemoryMemoryStore, lexical |",
      "| InMemoryMemoryStore, stub embedder |",
      "| SqliteMemoryStore, lexical |",
      "| SqliteMemoryStore, stub embedder |",
    ]) {
      expect(stdout).toContain(row);
    }
    expect(stdout).not.toMatch(/\bNaN\b|n\/a/);
  });
});

describe("pnpm --filter @agentloop/bench bench:run-cost --tiny", () => {
  it(
    "exits 0 and prints the shortest runs of each harness, and the longer runs it is asked for",
    async () => {
      const runCost = fileURLToPath(new URL("../dist/run-cost-main.js", import.meta.url));
      const { stdout } = await promisify(execFile)(process.execPath, [runCost, "--tiny", "--lengths", "1,2,10"], {
        maxBuffer: 1 << 20,
      });
      for (const row of ["| plain loop (floor) |", "| agentloop |", "| Vercel AI SDK |", "Load average"])
        expect(stdout).toContain(row);
      expect(stdout).toContain("| 10 steps (10 model calls) |");
    },
    hangGuard(60_000),
  );
});
