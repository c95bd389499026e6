import { replayRun } from "@agentloop/core";
import { agentloopHarness } from "../harnesses/agentloop.js";
import { checkedRun } from "../measure.js";
import { logOf } from "../metrics/event-log.js";

/**
 * A workload to profile with `node --cpu-prof`: `steps` repeats checked agentloop runs, `replay`
 * folds a run's log through `replayRun` repeatedly. `--runs N` sets the repeats (default 30),
 * `--steps N` the run length (default 1,000).
 */
const option = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const [mode = "steps"] = process.argv.slice(2).filter((arg) => !arg.startsWith("--") && !/^\d+$/.test(arg));
const runs = option("--runs", 30);
const steps = option("--steps", 1000);
const start = performance.now();
if (mode === "steps") {
  const run = checkedRun(agentloopHarness, steps);
  for (let index = 0; index < runs; index++) await run();
} else if (mode === "replay") {
  const log = await logOf(steps);
  for (let index = 0; index < runs; index++) {
    if (replayRun(log).result?.status !== "done") throw new Error("the replay did not finish");
  }
} else {
  throw new Error(`unknown mode '${mode}': use steps or replay`);
}
const ms = performance.now() - start;
process.stderr.write(
  `profile ${mode}: ${runs} × ${steps} steps in ${ms.toFixed(0)} ms (${((ms * 1000) / (runs * steps)).toFixed(1)} µs per step)\n`,
);
