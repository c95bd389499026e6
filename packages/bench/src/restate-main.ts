import { loadavg } from "node:os";
import { median } from "./measure.js";
import { measurePerStep } from "./metrics/restate.js";
import { FULL, TINY } from "./plan.js";
import { micros, ratio, table } from "./report.js";
import { startCluster } from "./restate/cluster.js";

// The Restate per-step rows alone (`pnpm bench:restate`): agentloop on Restate and the bare
// workflow of the same `ctx.run` calls, side by side in the same rounds, with the load average
// beside them, since the wall figures move with whatever else the machine runs. The CPU the
// server and the service used per step moves less: it is printed beside them, and the entries
// Restate journaled for one run of each, which do not move at all.
const plan = process.argv.includes("--tiny") ? TINY : FULL;
const before = loadavg();
const cluster = await startCluster(1);
try {
  const samples = () => new Map(plan.restate.lengths.map((length) => [length, [] as number[]]));
  const cpu = { perStep: samples(), bare: samples() };
  const { perStep, bare } = await measurePerStep(cluster, plan.restate, cpu);
  const rows = plan.restate.lengths.flatMap((length) => {
    const durable = perStep.get(length) ?? Number.NaN;
    const floor = bare.get(length) ?? Number.NaN;
    const durableCpu = median(cpu.perStep.get(length) ?? []);
    const floorCpu = median(cpu.bare.get(length) ?? []);
    return [
      [
        `per step, ${length} steps: on Restate, and a bare workflow of the same ctx.run calls`,
        `${micros(durable)} and ${micros(floor)} (${ratio(durable / floor)})`,
      ],
      [
        `CPU per step (server and service), ${length} steps: on Restate, and the bare workflow`,
        `${micros(durableCpu)} and ${micros(floorCpu)} (${ratio(durableCpu / floorCpu)})`,
      ],
    ];
  });
  for (const length of plan.restate.lengths) {
    const durable = await cluster.journalEntries("agent", length);
    const floor = await cluster.journalEntries("bare", length);
    const label = `journal entries, one ${length}-step run: on Restate, and the bare workflow`;
    rows.push([label, `${durable} and ${floor} (${ratio(durable / floor)})`]);
  }
  process.stdout.write(`${table(["agentloop on Restate", "result"], rows)}\n`);
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(", ");
  process.stdout.write(`\nLoad average before: ${load(before)}; after: ${load(loadavg())}.\n`);
} finally {
  await cluster.close();
}
