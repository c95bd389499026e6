import { loadavg } from "node:os";
import { measurePerStep } from "./metrics/restate.js";
import { FULL, TINY } from "./plan.js";
import { micros, ratio, table } from "./report.js";
import { startCluster } from "./restate/cluster.js";

// The Restate per-step rows alone (`pnpm bench:restate`): agentloop on Restate and the bare
// workflow of the same `ctx.run` calls, side by side in the same rounds, with the load average
// beside them, since the figures move with whatever else the machine runs.
const plan = process.argv.includes("--tiny") ? TINY : FULL;
const before = loadavg();
const cluster = await startCluster(1);
try {
  const { perStep, bare } = await measurePerStep(cluster, plan.restate);
  const rows = plan.restate.lengths.map((length) => {
    const durable = perStep.get(length) ?? Number.NaN;
    const floor = bare.get(length) ?? Number.NaN;
    return [
      `per step, ${length} steps: on Restate, and a bare workflow of the same ctx.run calls`,
      `${micros(durable)} and ${micros(floor)} (${ratio(durable / floor)})`,
    ];
  });
  process.stdout.write(`${table(["agentloop on Restate", "result"], rows)}\n`);
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(", ");
  process.stdout.write(`\nLoad average before: ${load(before)}; after: ${load(loadavg())}.\n`);
} finally {
  await cluster.close();
}
