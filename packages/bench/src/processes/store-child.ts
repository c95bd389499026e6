import { createInterface } from "node:readline";
import { type EventStore, runAgent, scriptedModel } from "@agentloop/core";
import { makeWeatherRegistry, WEATHER_TASK, weatherScript } from "@agentloop/core/testing";
import { openBenchStore } from "./open-store.js";

// One process of the many-process bench: opens the store named by its arguments, answers "ready",
// and on "go" runs `runs` weather runs, `concurrency` at a time, then prints what it did as JSON.
const [kind = "jsonl", location = "", runsText = "100", concurrencyText = "1", prefix = "p"] = process.argv.slice(2);
const runs = Number(runsText);
const concurrency = Number(concurrencyText);
const store = await openBenchStore(kind, location);
await store.read(`${prefix}-warm`); // the store's files or tables exist before the clock starts
process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== "go") break;
  const started = performance.now();
  let next = 0;
  let events = 0;
  let steps = 0;
  let runMs = 0;
  const worker = async (): Promise<void> => {
    while (next < runs) {
      const runId = `${prefix}-${next++}`;
      const { registry } = makeWeatherRegistry();
      const began = performance.now();
      const result = await runAgent(WEATHER_TASK, scriptedModel(weatherScript()), registry, {
        store: store as EventStore,
        runId,
      });
      runMs += performance.now() - began;
      steps += result.steps;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`);
    break;
  }
  const ms = performance.now() - started;
  // Every run logs the same events: one is counted after the clock stopped.
  events = (await store.read(`${prefix}-0`)).length * runs;
  process.stdout.write(`${JSON.stringify({ events, steps, ms, runMs })}\n`);
  break;
}
await store.close?.();
