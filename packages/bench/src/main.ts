import { type AgentResult, runAgent } from "@agentloop/core";
import { plainLoop } from "./plain-loop.js";
import { weatherModel, weatherRegistry } from "./scenario.js";

type Harness = (toolSteps: number) => Promise<AgentResult>;

const TASK = "How hot is Pune?";
const harnesses: Record<string, Harness> = {
  "plain loop (floor)": (n) =>
    plainLoop(TASK, weatherModel(n), weatherRegistry().registry, n + 1, Number.POSITIVE_INFINITY),
  agentloop: (n) =>
    runAgent(TASK, weatherModel(n), weatherRegistry().registry, {
      maxSteps: n + 1,
      tokenBudget: Number.POSITIVE_INFINITY,
    }),
};

/** Microseconds per model call, the median of `rounds` rounds that each run enough runs to take ~`roundMs`. */
async function perStep(harness: Harness, toolSteps: number, rounds: number, roundMs: number): Promise<number> {
  const check = await harness(toolSteps);
  if (check.status !== "done" || check.steps !== toolSteps + 1) throw new Error(`bad run: ${check.status}`);
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let runs = 0;
    const start = performance.now();
    while (performance.now() - start < roundMs) {
      await harness(toolSteps);
      runs++;
    }
    samples.push(((performance.now() - start) * 1000) / (runs * (toolSteps + 1)));
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

const tiny = process.argv.includes("--tiny");
const lengths = tiny ? [10] : [10, 100, 1000];
const rounds = tiny ? 1 : 7;
const roundMs = tiny ? 20 : 300;
const rows: string[] = [];
const floor: Record<number, number> = {};
for (const [name, harness] of Object.entries(harnesses)) {
  const cells: string[] = [];
  const perLength: number[] = [];
  for (const length of lengths) {
    const micros = await perStep(harness, length, rounds, roundMs);
    perLength.push(micros);
    floor[length] ??= micros;
    cells.push(`${micros.toFixed(1)} µs (${(micros / (floor[length] ?? micros)).toFixed(1)}×)`);
  }
  const growth = (perLength.at(-1) ?? 0) / (perLength[0] ?? 1);
  rows.push(`| ${name} | ${cells.join(" | ")} | ${growth.toFixed(2)}× |`);
}
console.log(
  `| harness | ${lengths.map((n) => `per step, ${n} steps`).join(" | ")} | growth ${lengths[0]}→${lengths.at(-1)} |`,
);
console.log(`| --- | ${lengths.map(() => "---").join(" | ")} | --- |`);
for (const row of rows) console.log(row);
