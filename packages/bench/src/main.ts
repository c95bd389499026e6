import { cpus } from "node:os";
import type { Harness } from "./harness.js";
import { agentloopHarness } from "./harnesses/agentloop.js";
import { floorHarness } from "./harnesses/floor.js";
import { langgraphHarness } from "./harnesses/langgraph.js";
import { openaiAgentsHarness } from "./harnesses/openai-agents.js";
import { vercelAiHarness } from "./harnesses/vercel-ai.js";
import { measureConcurrency } from "./metrics/concurrency.js";
import { logOf, measureReplay, measureResume, measureStore, type StoreCost } from "./metrics/event-log.js";
import { measureHeap } from "./metrics/heap.js";
import { measureLatency } from "./metrics/latency.js";
import { measureLongRuns } from "./metrics/long-runs.js";
import { measureParallelCalls } from "./metrics/parallel-calls.js";
import { FULL, TINY } from "./plan.js";
import { storeKinds, tempDirectory } from "./stores.js";
import { eventLogTable, harnessTable, longAndParallelTable, type Results, targetsTable } from "./tables.js";

const plan = process.argv.includes("--tiny") ? TINY : FULL;
const harnesses: readonly Harness[] = [
  floorHarness,
  agentloopHarness,
  vercelAiHarness,
  openaiAgentsHarness,
  langgraphHarness,
];
const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);
const started = performance.now();

progress("cost per run and per step (interleaved rounds)...");
const latency = await measureLatency(harnesses, { ...plan.latency, lengths: [plan.happySteps, ...plan.lengths] });
progress(`${plan.longRuns.lengths.join(" and ")} steps (floor and agentloop)...`);
const longRuns = await measureLongRuns([floorHarness, agentloopHarness], plan.longRuns.lengths, plan.longRuns.rounds);
progress(`a reply of three ${plan.parallelCalls.ms} ms calls...`);
const parallelCalls = await measureParallelCalls(plan.parallelCalls.ms, plan.parallelCalls.rounds);
progress(`${plan.concurrency.runs} concurrent runs...`);
const concurrency = await measureConcurrency(harnesses, plan.concurrency);

progress("replay, resume and stores (agentloop)...");
const log = await logOf(plan.longSteps);
const replayMs = measureReplay(log, plan.longSteps, plan.logRounds);
const resumeMs = await measureResume(log, plan.longSteps, plan.logRounds);
const storeLog = await logOf(plan.storeSteps);
const directory = tempDirectory();
const stores: { name: string; cost: StoreCost | string }[] = [];
try {
  for (const kind of await storeKinds(directory.path)) {
    const cost = kind.unavailable ?? (await measureStore(kind, storeLog, plan.storeSteps, plan.store));
    stores.push({ name: kind.name, cost });
  }
} finally {
  directory.remove();
}

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
  replay: { events: log.length, ms: replayMs },
  resume: { events: log.length - 2, ms: resumeMs },
  stores: { events: storeLog.length, rows: stores },
};
const seconds = ((performance.now() - started) / 1000).toFixed(0);
const cpu = cpus()[0]?.model ?? "unknown CPU";
const write = (text: string) => process.stdout.write(`${text}\n`);
write(`# agentloop bench${plan.tiny ? " (--tiny: sizes too small to mean anything)" : ""}\n`);
write(`Machine: ${cpus().length} cores, ${cpu}, Node ${process.version}, ${process.platform} ${process.arch}.`);
write(`Measured in one process in ${seconds} s; ratios are to the floor measured in the same run.\n`);
write(`${harnessTable(results)}\n`);
write(`${longAndParallelTable(results)}\n`);
write(`${eventLogTable(results)}\n`);
write(targetsTable(results));
