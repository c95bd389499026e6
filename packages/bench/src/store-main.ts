import { cpus } from "node:os";
import { logOf } from "./metrics/event-log.js";
import { measureStoreLoad, type StoreLoad } from "./metrics/store-load.js";
import { FULL, TINY } from "./plan.js";
import { storeLoadTable } from "./store-tables.js";
import { storeKinds, tempDirectory } from "./stores.js";

// The store rows alone (`pnpm bench:stores`): the same measurement as the full bench's, in a
// process of its own, so each Node version (and so each SQLite driver) can be measured by itself.
const plan = process.argv.includes("--tiny") ? TINY : FULL;
const only = process.argv.includes("--sqlite") ? "Sqlite" : "";
const storeLog = await logOf(plan.storeSteps);
const directory = tempDirectory();
const loads: { name: string; load: StoreLoad | string }[] = [];
try {
  for (const kind of await storeKinds(directory.path)) {
    if (!kind.name.startsWith(only)) continue;
    process.stderr.write(`bench: ${kind.name}...\n`);
    const longLog = kind.name.startsWith("Sqlite") || kind.name.includes("batch");
    const load = kind.unavailable ?? (await measureStoreLoad(kind, storeLog, plan.storeLoad, longLog));
    loads.push({ name: kind.name, load });
  }
} finally {
  directory.remove();
}
const cpu = cpus()[0]?.model ?? "unknown CPU";
process.stdout.write(`# agentloop store bench${plan.tiny ? " (--tiny: sizes too small to mean anything)" : ""}\n\n`);
process.stdout.write(
  `Machine: ${cpus().length} cores, ${cpu}, Node ${process.version}, ${process.platform} ${process.arch}.\n\n`,
);
process.stdout.write(`${storeLoadTable(plan.storeLoad, loads)}\n`);
