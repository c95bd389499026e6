import { loadavg } from "node:os";
import { startTestPostgres } from "@agentloop/store-testkit/servers";
import { logOf } from "./metrics/event-log.js";
import { measureStoreLoad, type StoreLoad } from "./metrics/store-load.js";
import { measureRunCost, type RunCost } from "./metrics/store-run-cost.js";
import { FULL, TINY } from "./plan.js";
import { machine, title } from "./report.js";
import { runCostTable, storeLoadTable } from "./store-tables.js";
import { postgresKind, type StoreKind, storeKinds, tempDirectory } from "./stores.js";

// The store rows alone (`pnpm bench:stores`): the same measurement as the full bench's, in a
// process of its own, so each Node version (and so each SQLite driver) can be measured by itself.
// With `--live`: what each store adds to a live run, per step and per run, Postgres included (the
// server AGENTLOOP_TEST_POSTGRES names, or one started as the tests start it).
const plan = process.argv.includes("--tiny") ? TINY : FULL;
const only = process.argv.includes("--sqlite") ? "Sqlite" : "";
const live = process.argv.includes("--live");
const storeLog = await logOf(plan.storeSteps);
const directory = tempDirectory();
const loads: { name: string; load: StoreLoad | string }[] = [];
const costs: { name: string; cost: RunCost | string }[] = [];
const postgres = live ? await startTestPostgres() : undefined;
const load = avg();
try {
  const kinds: StoreKind[] = await storeKinds(directory.path);
  if (postgres !== undefined) kinds.push(await postgresKind(postgres.url));
  for (const kind of kinds) {
    if (!kind.name.startsWith(only)) continue;
    process.stderr.write(`bench: ${kind.name}...\n`);
    if (live) {
      costs.push({ name: kind.name, cost: kind.unavailable ?? (await measureRunCost(kind, plan.storeRuns)) });
      continue;
    }
    const longLog = kind.name.startsWith("Sqlite") || kind.name.includes("batch");
    loads.push({
      name: kind.name,
      load: kind.unavailable ?? (await measureStoreLoad(kind, storeLog, plan.storeLoad, longLog)),
    });
  }
} finally {
  await postgres?.stop();
  directory.remove();
}
process.stdout.write(`${title("store bench", plan.tiny)}\n\n`);
process.stdout.write(
  `${machine()}, ${process.platform} ${process.arch}; load average ${load} at the start, ${avg()} at the end.\n\n`,
);
process.stdout.write(`${live ? runCostTable(plan.storeRuns, costs) : storeLoadTable(plan.storeLoad, loads)}\n`);

function avg(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");
}
