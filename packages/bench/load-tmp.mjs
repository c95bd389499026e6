import { logOf } from "./dist/metrics/event-log.js";
import { measureStoreLoad } from "./dist/metrics/store-load.js";
import { storeKinds, tempDirectory } from "./dist/stores.js";

const template = await logOf(100);
const dir = tempDirectory();
const plan = { runs: 100, eventsPerRun: 300, maxMs: 3000, logLength: Number(process.argv[2] ?? 30000), window: 1000 };
for (const kind of await storeKinds(dir.path)) {
  if (process.argv[3] && !kind.name.includes(process.argv[3])) continue;
  const t = performance.now();
  const load = await measureStoreLoad(
    kind,
    template,
    plan,
    kind.name.startsWith("Sqlite") || kind.name.includes("batch"),
  );
  console.log(kind.name, JSON.stringify(load), ((performance.now() - t) / 1000).toFixed(1), "s");
}
dir.remove();
