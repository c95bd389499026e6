import type { Harness } from "./harness.js";
import { agentloopHarness } from "./harnesses/agentloop.js";
import { floorHarness } from "./harnesses/floor.js";
import { langgraphHarness } from "./harnesses/langgraph.js";
import { openaiAgentsHarness } from "./harnesses/openai-agents.js";
import { vercelAiHarness } from "./harnesses/vercel-ai.js";
import { measureBatchPeaks, measureConcurrency } from "./metrics/concurrency.js";
import { logOf, measureReplay, measureResume, measureStore, type StoreCost } from "./metrics/event-log.js";
import { measureHeap } from "./metrics/heap.js";
import { measureLatency } from "./metrics/latency.js";
import { measureLongRuns } from "./metrics/long-runs.js";
import { measureParallelCalls } from "./metrics/parallel-calls.js";
import { measurePatterns } from "./metrics/patterns.js";
import { measureRestate } from "./metrics/restate.js";
import { measureStoreLoad, type StoreLoad } from "./metrics/store-load.js";
import { measureValidation } from "./metrics/validation.js";
import { FULL, TINY } from "./plan.js";
import { machine, progress, title } from "./report.js";
import { storeLoadTable } from "./store-tables.js";
import { storeKinds, tempDirectory } from "./stores.js";
import {
  eventLogTable,
  harnessTable,
  longAndParallelTable,
  patternTable,
  type Results,
  restateTable,
  targetsTable,
  validationTable,
} from "./tables.js";

const plan = process.argv.includes("--tiny") ? TINY : FULL;
const harnesses: readonly Harness[] = [
  floorHarness,
  agentloopHarness,
  vercelAiHarness,
  openaiAgentsHarness,
  langgraphHarness,
];
const started = performance.now();

progress("cost per run and per step (interleaved rounds)...");
const latency = await measureLatency(harnesses, { ...plan.latency, lengths: [plan.happySteps, ...plan.lengths] });
progress(`${plan.longRuns.lengths.join(" and ")} steps (floor and agentloop)...`);
const longRuns = await measureLongRuns([floorHarness, agentloopHarness], plan.longRuns.lengths, plan.longRuns.rounds);
progress(`a reply of three ${plan.parallelCalls.ms} ms calls...`);
const parallelCalls = await measureParallelCalls(plan.parallelCalls.ms, plan.parallelCalls.rounds);
progress(`${plan.concurrency.runs} concurrent runs...`);
const concurrency = await measureConcurrency(harnesses, plan.concurrency);
progress(`${plan.bigBatch.runs} concurrent runs, heap watched (floor and agentloop)...`);
const bigBatch = await measureBatchPeaks([floorHarness, agentloopHarness], plan.bigBatch);

progress("replay, resume and stores (agentloop)...");
const log = await logOf(plan.longSteps);
const replayMs = measureReplay(log, plan.longSteps, plan.logRounds);
const resumeMs = await measureResume(log, plan.longSteps, plan.logRounds);
const storeLog = await logOf(plan.storeSteps);
const directory = tempDirectory();
const stores: { name: string; cost: StoreCost | string }[] = [];
const loads: { name: string; load: StoreLoad | string }[] = [];
try {
  for (const kind of await storeKinds(directory.path)) {
    const cost = kind.unavailable ?? (await measureStore(kind, storeLog, plan.storeSteps, plan.store));
    stores.push({ name: kind.name, cost });
  }
  progress(`stores under ${plan.storeLoad.runs} concurrent runs, and along a ${plan.storeLoad.logLength}-event log...`);
  for (const kind of await storeKinds(directory.path)) {
    const longLog = kind.name.startsWith("Sqlite") || kind.name.includes("batch");
    const load = kind.unavailable ?? (await measureStoreLoad(kind, storeLog, plan.storeLoad, longLog));
    loads.push({ name: kind.name, load });
  }
} finally {
  directory.remove();
}

progress("tool argument validation...");
const validation = await measureValidation(plan.validation.rounds, plan.validation.calls);
progress("pattern checks...");
const patterns = measurePatterns(plan.patterns);
progress("agentloop on a Restate server (started from node_modules), service processes beside it...");
const restate = await measureRestate(plan.restate);

// Last: the forced collections of the heap measurement would slow whatever is timed after them.
progress(`live heap after a ${plan.longSteps}-step run...`);
const heap = new Map<string, number>();
for (const harness of harnesses) heap.set(harness.name, await measureHeap(harness, plan.longSteps, plan.heapRuns));

const results: Results = {
  plan,
  harnesses,
  latency,
  longRuns,
  parallelCalls,
  heap,
  concurrency,
  bigBatch,
  replay: { events: log.length, ms: replayMs },
  resume: { events: log.length - 2, ms: resumeMs },
  stores: { events: storeLog.length, rows: stores },
  validation,
  patterns,
  restate,
};
const seconds = ((performance.now() - started) / 1000).toFixed(0);
const write = (text: string) => process.stdout.write(`${text}\n`);
write(`${title("bench", plan.tiny)}\n`);
write(`${machine()}, ${process.platform} ${process.arch}.`);
write(`Measured in one process in ${seconds} s; ratios are to the floor measured in the same run.\n`);
write(`${harnessTable(results)}\n`);
write(`${longAndParallelTable(results)}\n`);
write(`${eventLogTable(results)}\n`);
write(`${storeLoadTable(plan.storeLoad, loads)}\n`);
write(`${validationTable(results)}\n`);
write(`${patternTable(results)}\n`);
write(`${restateTable(results)}\n`);
write(targetsTable(results));
