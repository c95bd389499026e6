import { loadavg } from "node:os";
import { median } from "./measure.js";
import { measureIdleGaps } from "./metrics/idle-gaps.js";
import { measurePerStep } from "./metrics/restate.js";
import { FULL, TINY } from "./plan.js";
import { micros, ratio, table } from "./report.js";
import { type CpuMs, startCluster } from "./restate/cluster.js";

// The Restate per-step rows alone (`pnpm bench:restate`): agentloop on Restate and the bare
// workflow of the same `ctx.run` calls, side by side in the same rounds, with the load average
// beside them, since the wall figures move with whatever else the machine runs. The CPU the
// server and the service used per step moves less: it is printed beside them, each process apart,
// and the entries Restate journaled for one run of each, which do not move at all. Last, what a
// step of runAgent costs in one process when the process sleeps between steps, as the service does.
const plan = process.argv.includes("--tiny") ? TINY : FULL;
const before = loadavg();
const cluster = await startCluster(1);
const rows: string[][] = [];
const pair = (durable: number, floor: number) => `${micros(durable)} and ${micros(floor)} (${ratio(durable / floor)})`;
try {
  const samples = () => new Map(plan.restate.lengths.map((length) => [length, [] as CpuMs[]]));
  const cpu = { perStep: samples(), bare: samples() };
  const { perStep, bare } = await measurePerStep(cluster, plan.restate, cpu);
  for (const length of plan.restate.lengths) {
    const of = (kind: Map<number, CpuMs[]>, part: (used: CpuMs) => number) =>
      median((kind.get(length) ?? []).map(part));
    const total = (used: CpuMs) => used.server + used.service;
    rows.push(
      [
        `per step, ${length} steps: on Restate, and a bare workflow of the same ctx.run calls`,
        pair(perStep.get(length) ?? Number.NaN, bare.get(length) ?? Number.NaN),
      ],
      [
        `CPU per step (server and service), ${length} steps: on Restate, and the bare workflow`,
        pair(of(cpu.perStep, total), of(cpu.bare, total)),
      ],
      [
        `CPU per step of the Restate server, ${length} steps: on Restate, and the bare workflow`,
        pair(
          of(cpu.perStep, (used) => used.server),
          of(cpu.bare, (used) => used.server),
        ),
      ],
      [
        `CPU per step of the service process, ${length} steps: on Restate, and the bare workflow`,
        pair(
          of(cpu.perStep, (used) => used.service),
          of(cpu.bare, (used) => used.service),
        ),
      ],
    );
  }
  for (const length of plan.restate.lengths) {
    const durable = await cluster.journalEntries("agent", length);
    const floor = await cluster.journalEntries("bare", length);
    const label = `journal entries, one ${length}-step run: on Restate, and the bare workflow`;
    rows.push([label, `${durable} and ${floor} (${ratio(durable / floor)})`]);
  }
} finally {
  await cluster.close();
}
const steps = plan.tiny ? 10 : 100;
const gaps = await measureIdleGaps(steps, plan.tiny ? 1 : 7);
rows.push([
  `runAgent's CPU per step in one process, ${steps} steps: the model answering after ${gaps.gapMs} ms (the wait's own CPU taken off), and at once`,
  pair(gaps.gapped, gaps.backToBack),
]);
process.stdout.write(`${table(["agentloop on Restate", "result"], rows)}\n`);
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(", ");
process.stdout.write(`\nLoad average before: ${load(before)}; after: ${load(loadavg())}.\n`);
