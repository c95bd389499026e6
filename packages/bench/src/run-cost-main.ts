import { loadavg } from "node:os";
import { resolve } from "node:path";
import type { runAgent, ToolRegistry } from "@agentloop/core";
import type { Harness } from "./harness.js";
import { agentloopHarness, outcomeOf, weatherModel, weatherRegistry } from "./harnesses/agentloop.js";
import { floorHarness } from "./harnesses/floor.js";
import { vercelAiHarness } from "./harnesses/vercel-ai.js";
import { measureLatency } from "./metrics/latency.js";
import { SYSTEM, TASK } from "./scenario.js";

// The fixed cost of a run (`pnpm --filter @agentloop/bench bench:run-cost`, after a build; `--tiny`
// for a tiny size): the shortest runs of the weather scenario, a run that answers at once (one model
// call) and a run of one tool step (a call, its result, then the answer: two model calls), in the
// same harness and interleaved rounds as the main bench's cost per run, beside the floor and the AI SDK.
// Directories of other builds of core (`packages/core/.compare/<sha>`, as `pnpm bench:compare` makes
// them) given as arguments are measured beside this one, in the same rounds.

const tiny = process.argv.includes("--tiny");
const others = await Promise.all(
  process.argv
    .slice(2)
    .filter((arg, index, args) => !arg.startsWith("--") && args[index - 1] !== "--lengths")
    .map(async (dir) => buildHarness(dir, await import(resolve(dir, "index.js")))),
);
const harnesses: readonly Harness[] = [floorHarness, agentloopHarness, ...others, vercelAiHarness];
const plan = tiny ? { rounds: 1, sampleMs: 5, warmMs: 5 } : { rounds: 9, sampleMs: 300, warmMs: 1500 };
// `--lengths 1,2,10,100` adds longer runs, whose cost per step is the step's multiple of the floor.
const lengthsAt = process.argv.indexOf("--lengths");
const lengths = lengthsAt === -1 ? [1, 2] : (process.argv[lengthsAt + 1] ?? "1,2").split(",").map(Number);
const load = loadavg().map((value) => value.toFixed(2));
const latency = await measureLatency(harnesses, { ...plan, lengths });
const loadAfter = loadavg().map((value) => value.toFixed(2));

const perRun = (harness: Harness, length: number) => (latency.get(harness.name)?.get(length) ?? Number.NaN) * length;
const write = (line: string) => process.stdout.write(`${line}\n`);
write(
  `Wall µs per run (and per model call), median of ${plan.rounds} interleaved rounds; the ratio is to the floor.\n`,
);
const calls = (length: number) =>
  length === 1 ? "answer at once" : length === 2 ? "one tool step" : `${length} steps`;
write(
  `| harness | ${lengths.map((length) => `${calls(length)} (${length} model call${length === 1 ? "" : "s"})`).join(" | ")} |`,
);
write(`| --- | ${lengths.map(() => "---").join(" | ")} |`);
for (const harness of harnesses) {
  const cells = lengths.map((length) => {
    const value = perRun(harness, length);
    const ratio = `${(value / perRun(floorHarness, length)).toFixed(1)}×`;
    return length <= 2 ? `${value.toFixed(1)} µs (${ratio})` : `${(value / length).toFixed(1)} µs per step (${ratio})`;
  });
  write(`| ${harness.name} | ${cells.join(" | ")} |`);
}
write(`\nLoad average (1, 5, 15 min): ${load.join(", ")} at the start, ${loadAfter.join(", ")} at the end.`);

/** agentloop from another build of core, with that build's registry. */
function buildHarness(dir: string, core: { runAgent: typeof runAgent; ToolRegistry: new () => ToolRegistry }): Harness {
  const registry = weatherRegistry(core.ToolRegistry);
  return {
    name: `agentloop (${dir})`,
    version: dir,
    prepare(steps, delayMs) {
      const model = weatherModel(steps, delayMs);
      const options = { system: SYSTEM, maxSteps: steps, tokenBudget: Number.POSITIVE_INFINITY };
      return async () => outcomeOf(await core.runAgent(TASK, model, registry, options));
    },
  };
}
