import { loadavg } from "node:os";
import { measureStudio, type StudioBuild, type StudioCost, THIS_CLI } from "./metrics/studio.js";
import { buildAgainst } from "./metrics/studio-against.js";
import { machine, title } from "./report.js";
import { tempDirectory } from "./stores.js";

// The studio's rows (`pnpm bench:studio [--tiny] [--against <git-ref>] [--sessions N]`): its pages at a
// thousand runs and at a long run, in Chromium; with --against, the CLI at that commit is measured
// too, the two taking turns, and each figure of this checkout is given as a ratio of that one's.
const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const tiny = args.includes("--tiny");
const against = option("--against");
const plan = tiny
  ? { runs: 20, runSteps: 3, longSteps: 30, rounds: 2, sessions: 1 }
  : { runs: 1000, runSteps: 5, longSteps: 3334, rounds: 4, sessions: 3 };
const sessions = Number(option("--sessions") ?? plan.sessions);
const progress = (line: string) => process.stderr.write(`${line}\n`);
const builds: StudioBuild[] = [];
if (against !== undefined) builds.push(buildAgainst(against, progress));
builds.push({ name: "this checkout", cli: THIS_CLI });
const directory = tempDirectory();
try {
  progress(`bench: studio with ${plan.runs} runs and a ${plan.longSteps}-step run, ${sessions} session(s) a build...`);
  const load = loadavg()[0] ?? 0;
  const costs = await measureStudio(directory.path, { ...plan, sessions }, builds, progress);
  const loadAfter = loadavg()[0] ?? 0;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const base = costs.builds[0]?.cost;
  const ratio = (value: number, before: number | undefined) =>
    costs.builds.length > 1 && before !== undefined ? ` (${(value / before).toFixed(2)}×)` : "";
  const cells = (cost: StudioCost, page: "list" | "run") => {
    const { first, again } = cost[page];
    const was = base?.[page];
    return [
      ms(first.paint) + ratio(first.paint, was?.first.paint),
      ms(first.ready) + ratio(first.ready, was?.first.ready),
      ms(again.paint) + ratio(again.paint, was?.again.paint),
      ms(again.ready) + ratio(again.ready, was?.again.ready),
    ].join(" | ");
  };
  const out = [title("studio bench", tiny), ""];
  out.push(`${machine()}, Chromium (Debian).`);
  out.push(`Load average (1 min): ${load.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end.`);
  out.push(`Each figure is the median of ${sessions} session(s) of its build; the builds took turns.`, "");
  out.push("| page | build | first load: first contentful paint | first load: ready | again: paint | again: ready |");
  out.push("| --- | --- | ---: | ---: | ---: | ---: |");
  for (const page of ["list", "run"] as const) {
    const label = page === "list" ? `list of ${plan.runs + 1} runs` : `a run of ${costs.longEvents} events`;
    for (const { build, cost } of costs.builds) out.push(`| ${label} | ${build.name} | ${cells(cost, page)} |`);
  }
  out.push("");
  for (const { build, cost } of costs.builds) {
    out.push(
      `${build.name}: the studio read and checked the store and printed its URL ${ms(cost.startMs)} after its process started.`,
    );
  }
  if (costs.builds.length > 1)
    out.push("", "In brackets: this checkout's figure over the first build's (below 1: faster).");
  process.stdout.write(`${out.join("\n")}\n`);
} finally {
  directory.remove();
}
