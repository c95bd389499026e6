import { cpus } from "node:os";
import { measureStudio } from "./metrics/studio.js";
import { tempDirectory } from "./stores.js";

// The studio's rows (`pnpm bench:studio`): its pages at a thousand runs and at a long run, in Chromium.
const tiny = process.argv.includes("--tiny");
const plan = tiny
  ? { runs: 20, runSteps: 3, longSteps: 30, rounds: 2 }
  : { runs: 1000, runSteps: 5, longSteps: 3334, rounds: 4 };
const directory = tempDirectory();
try {
  process.stderr.write(`bench: studio with ${plan.runs} runs and a ${plan.longSteps}-step run...\n`);
  const cost = await measureStudio(directory.path, plan);
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const row = ({ first, again }: (typeof cost)["list"]) =>
    [first.paint, first.ready, again.paint, again.ready].map(ms).join(" | ");
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  process.stdout.write(`# agentloop studio bench${tiny ? " (--tiny: sizes too small to mean anything)" : ""}\n\n`);
  process.stdout.write(`Machine: ${cpus().length} cores, ${cpu}, Node ${process.version}, Chromium (Debian).\n\n`);
  process.stdout.write(
    [
      "| page | first load: first contentful paint | first load: ready | again: paint | again: ready |",
      "| --- | ---: | ---: | ---: | ---: |",
      `| list of ${plan.runs + 1} runs | ${row(cost.list)} |`,
      `| a run of ${cost.longEvents} events | ${row(cost.run)} |`,
      "",
      `The studio read and checked the whole store (${plan.runs + 1} logs) and printed its URL ${ms(cost.startMs)} after its process started.`,
      "",
    ].join("\n"),
  );
} finally {
  directory.remove();
}
