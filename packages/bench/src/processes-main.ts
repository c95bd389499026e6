import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startTestPostgres } from "@agentloop/store-testkit/servers";
import { machine, title } from "./report.js";
import { tempDirectory } from "./stores.js";

// The stores under many processes (`pnpm bench:processes [--tiny]`): the weather agent's runs written
// by 1 and by 4 processes at once, on JSONL, SQLite and Postgres, side by side on this machine.
// Appends per second: each process runs its runs 10 at a time; cost per step: one at a time, the
// run's wall time over its model calls. Postgres is the server AGENTLOOP_TEST_POSTGRES names, or
// one started from the npm registry's binaries as the tests start it.
const tiny = process.argv.includes("--tiny");
const plan = tiny ? { runs: 10, concurrency: 4, stepRuns: 4 } : { runs: 60, concurrency: 10, stepRuns: 15 };
const CHILD = join(import.meta.dirname, "processes", "store-child.js");
const progress = (line: string) => process.stderr.write(`${line}\n`);

interface ChildReport {
  readonly error?: string;
  readonly events: number;
  readonly steps: number;
  readonly ms: number;
  readonly runMs: number;
}

/** Starts `processes` children on one store, lets them go at once, and collects what each did. */
async function measure(kind: string, location: string, processes: number, runs: number, concurrency: number) {
  const children = Array.from({ length: processes }, (_, index) =>
    spawn(process.execPath, [CHILD, kind, location, String(runs), String(concurrency), `p${index}`], {
      stdio: ["pipe", "pipe", "inherit"],
    }),
  );
  const exited = children.map((child) => new Promise((resolve) => child.once("exit", resolve)));
  const lines = children.map((child) => lineReader(child.stdout));
  for (const line of lines) {
    const ready = await line();
    if (ready !== "ready") throw new Error(`a ${kind} bench process did not start: ${ready}`);
  }
  const started = performance.now();
  for (const child of children) child.stdin.end("go\n");
  const reports = await Promise.all(lines.map(async (line) => JSON.parse(await line()) as ChildReport));
  const wall = performance.now() - started;
  await Promise.all(exited);
  const failed = reports.find((report) => report.error !== undefined);
  if (failed !== undefined) return `failed: ${failed.error}`;
  const events = reports.reduce((sum, report) => sum + report.events, 0);
  const steps = reports.reduce((sum, report) => sum + report.steps, 0);
  const runMs = reports.reduce((sum, report) => sum + report.runMs, 0);
  return { appendsPerSecond: (events / wall) * 1000, msPerStep: runMs / steps, events };
}

/** The lines a stream gives, one per call; "" once it ended. */
function lineReader(stream: NodeJS.ReadableStream): () => Promise<string> {
  const ready: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  const give = (line: string) => {
    const next = waiting.shift();
    if (next === undefined) ready.push(line);
    else next(line);
  };
  createInterface({ input: stream })
    .on("line", give)
    .on("close", () => {
      for (const next of waiting.splice(0)) next("");
    });
  return () => {
    const line = ready.shift();
    return line === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(line);
  };
}

const directory = tempDirectory();
const postgres = await startTestPostgres();
const rows: string[] = [];
try {
  let sequence = 0;
  const locations: Record<string, () => string> = {
    "JsonlEventStore (durability default)": () => join(directory.path, `jsonl-${sequence++}`),
    SqliteEventStore: () => join(directory.path, `sqlite-${sequence++}.db`),
    "PostgresEventStore (127.0.0.1)": () => {
      const url = new URL(postgres.url);
      url.searchParams.set("schema", `bench_${process.pid}_${sequence++}`);
      return url.href;
    },
  };
  const kinds: Record<string, string> = {
    "JsonlEventStore (durability default)": "jsonl",
    SqliteEventStore: "sqlite",
    "PostgresEventStore (127.0.0.1)": "postgres",
  };
  for (const [name, location] of Object.entries(locations)) {
    for (const processes of [1, 4]) {
      progress(`bench: ${name}, ${processes} process(es)...`);
      const kind = kinds[name] ?? "jsonl";
      const load = await measure(kind, location(), processes, plan.runs, plan.concurrency);
      const steps = await measure(kind, location(), processes, plan.stepRuns, 1);
      const rate = typeof load === "string" ? load : load.appendsPerSecond.toFixed(0);
      const step = typeof steps === "string" ? steps : `${steps.msPerStep.toFixed(2)} ms`;
      rows.push(`| ${name} | ${processes} | ${rate} | ${step} | ${typeof load === "string" ? "-" : load.events} |`);
    }
  }
} finally {
  await postgres.stop();
  directory.remove();
}
const out = [title("stores under many processes", tiny), ""];
out.push(`${machine()}; load average ${loadavg()[0]?.toFixed(1)} at the end.`);
out.push(
  `Each process: ${plan.runs} weather runs ${plan.concurrency} at a time (appends/s, over the wall time of all processes), then ${plan.stepRuns} runs one at a time (cost per step: a run's wall time over its model calls).`,
  "",
);
out.push("| store | processes | appends/s | cost per step | events |", "| --- | ---: | ---: | ---: | ---: |", ...rows);
process.stdout.write(`${out.join("\n")}\n`);
