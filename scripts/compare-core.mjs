#!/usr/bin/env node
// Compares two commits of @agentloop/core side by side in one small process: CPU time per step of
// the weather scenario at several run lengths, replay of a 1,000-step log, and the concurrent batch,
// the two builds interleaved round by round so that the machine's drift hits both alike. For runs
// of 10 steps or more it also splits the step: the machine alone (an actor taking the run's events,
// nothing performed) and the rest, which is what the driver adds.
//
//   node scripts/compare-core.mjs <git-ref-a> <git-ref-b> [--rounds N] [--lengths 3,10,100,1000]
//                                 [--b-prepare-step]
//
// `--b-prepare-step` gives b's runs a `prepareStep` that returns nothing: `HEAD HEAD --b-prepare-step`
// is what a step costs with it against without it, and `HEAD HEAD` alone the noise of the machine.
//
// Each ref's packages/core is compiled into packages/core/.compare/<ref>/ (ignored by git), next to
// core's node_modules, so both builds load the same xstate. The scenario is the bench's, so build
// first (pnpm run build).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
// `pnpm bench:compare -- a b` passes the `--` on (pnpm 12): a leading one is dropped.
const args = process.argv.slice(process.argv[2] === "--" ? 3 : 2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const FLAGS = new Set(["--b-prepare-step"]);
const refs = args.filter(
  (arg, index) => !arg.startsWith("--") && !(args[index - 1]?.startsWith("--") && !FLAGS.has(args[index - 1])),
);
const preparing = args.includes("--b-prepare-step");
if (refs.length !== 2) {
  process.stderr.write(
    "usage: node scripts/compare-core.mjs <git-ref-a> <git-ref-b> [--rounds N] [--lengths 3,10,100] [--b-prepare-step]\n",
  );
  process.exit(2);
}
const rounds = Number(option("--rounds", "9"));
const lengths = option("--lengths", "3,10,100,1000").split(",").map(Number);

/** Compiles packages/core at `ref` and returns the directory of its index.js. */
function build(ref) {
  const sha = execFileSync("git", ["rev-parse", "--short", ref], { cwd: root, encoding: "utf8" }).trim();
  const out = join(root, "packages/core/.compare", sha);
  const tree = mkdtempSync(join(tmpdir(), "agentloop-compare-"));
  try {
    execFileSync("git", ["worktree", "add", "--detach", "--quiet", tree, sha], { cwd: root });
    symlinkSync(join(root, "node_modules"), join(tree, "node_modules"));
    symlinkSync(join(root, "packages/core/node_modules"), join(tree, "packages/core/node_modules"));
    const tsc = join(root, "node_modules/.bin/tsc");
    execFileSync(tsc, ["-p", "tsconfig.build.json", "--outDir", out], { cwd: join(tree, "packages/core") });
  } finally {
    execFileSync("git", ["worktree", "remove", "--force", tree], { cwd: root });
    rmSync(tree, { recursive: true, force: true });
  }
  return { name: `${ref} (${sha})`, dir: out };
}

const builds = refs.map(build);
const cores = await Promise.all(builds.map(({ dir }) => import(join(dir, "index.js"))));
// The bench's own scenario (its model and tools), each build with its own ToolRegistry.
const { weatherModel: model, weatherRegistry } = await import(
  join(root, "packages/bench/dist/harnesses/agentloop.js")
).catch((error) => {
  process.stderr.write("compare-core needs the bench built first: pnpm run build\n");
  throw error;
});
const registries = cores.map((core) => weatherRegistry(core.ToolRegistry));
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const options = (steps) => ({ maxSteps: steps, tokenBudget: Number.POSITIVE_INFINITY });
/** b's options: with an empty `prepareStep` under `--b-prepare-step`. */
const optionsOf = (index, steps) =>
  index === 1 && preparing ? { ...options(steps), prepareStep: () => undefined } : options(steps);
async function run(index, steps) {
  const result = await cores[index].runAgent(
    "How hot is Pune?",
    model(steps, 0),
    registries[index],
    optionsOf(index, steps),
  );
  if (result.status !== "done" || result.steps !== steps) throw new Error(`${builds[index].name}: ${result.status}`);
}
/** CPU µs per step over runs back to back for `ms` milliseconds. */
async function perStep(index, steps, ms) {
  let runs = 0;
  const cpu = cpuMicros();
  const start = performance.now();
  while (performance.now() - start < ms) {
    await run(index, steps);
    runs++;
  }
  return (cpuMicros() - cpu) / runs / steps;
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ratio = (b, a) => `${(b / a).toFixed(2)}×`;

for (const index of [0, 1]) await perStep(index, 10, 1000);
const samples = new Map();
for (let round = 0; round < rounds; round++) {
  for (const steps of lengths) {
    for (const index of round % 2 ? [0, 1] : [1, 0]) {
      const key = `${index}:${steps}`;
      samples.set(key, [...(samples.get(key) ?? []), await perStep(index, steps, 150)]);
    }
  }
}
const [a, b] = builds.map((build, index) =>
  index === 1 && preparing ? `${build.name} with an empty prepareStep` : build.name,
);
process.stdout.write(`CPU µs per step, median of ${rounds} interleaved rounds: ${a} → ${b}\n`);
// Beside the ratio of the medians, the median of each round's own ratio: the two samples of a
// round are taken one after the other, so a machine whose load moves between rounds moves both.
for (const steps of lengths) {
  const [xs, ys] = [0, 1].map((index) => samples.get(`${index}:${steps}`));
  const [x, y] = [median(xs), median(ys)];
  const paired = median(xs.map((value, round) => ys[round] / value));
  process.stdout.write(
    `  ${String(steps).padStart(5)} steps: ${x.toFixed(1)} → ${y.toFixed(1)} (${ratio(y, x)}; per round ${paired.toFixed(2)}×)\n`,
  );
}

// Where the step goes: the machine alone, an actor of each build's `agentMachine` taking the events
// of a run of `steps` (caught through `inspect`) with nothing performed, and the rest (the driver:
// the model's and the tools' calls, the copies and checks of what they return, the loop), which is
// the step less the machine. Same rounds, same interleaving.
const { createActor } = await import(join(root, "packages/core/node_modules/xstate/dist/xstate.cjs.js"));
async function caught(index, steps) {
  const events = [];
  let input;
  const inspect = (inspection) => {
    if (inspection.type === "@xstate.actor" && input === undefined) input = inspection.actorRef.options?.input;
    if (inspection.type === "@xstate.event" && !inspection.event.type.startsWith("xstate."))
      events.push(inspection.event);
  };
  await cores[index].runAgent("How hot is Pune?", model(steps, 0), registries[index], { ...options(steps), inspect });
  return { events, input };
}
/** CPU µs per step of the machine alone taking a run's events, for `ms` milliseconds. */
function machineStep(index, { events, input }, steps, ms) {
  let runs = 0;
  const cpu = cpuMicros();
  const start = performance.now();
  while (performance.now() - start < ms) {
    const actor = createActor(cores[index].agentMachine, { input });
    actor.on("*", () => {});
    actor.start();
    for (const event of events) actor.send(event);
    if (actor.getSnapshot().status !== "done") throw new Error(`${builds[index].name}: the replay did not finish`);
    actor.stop();
    runs++;
  }
  return (cpuMicros() - cpu) / runs / steps;
}
const machineLengths = lengths.filter((steps) => steps >= 10);
if (machineLengths.length > 0) {
  const runsOf = new Map();
  for (const steps of machineLengths) runsOf.set(steps, await Promise.all([0, 1].map((index) => caught(index, steps))));
  const machine = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const steps of machineLengths) {
      for (const index of round % 2 ? [0, 1] : [1, 0]) {
        const key = `${index}:${steps}`;
        machine.set(key, [...(machine.get(key) ?? []), machineStep(index, runsOf.get(steps)[index], steps, 150)]);
      }
    }
  }
  process.stdout.write(`Of a step (CPU µs, medians): the machine alone, and the rest (the step less the machine)\n`);
  for (const steps of machineLengths) {
    const [ma, mb] = [0, 1].map((index) => median(machine.get(`${index}:${steps}`)));
    const [sa, sb] = [0, 1].map((index) => median(samples.get(`${index}:${steps}`)));
    process.stdout.write(
      `  ${String(steps).padStart(5)} steps: machine ${ma.toFixed(1)} → ${mb.toFixed(1)} (${ratio(mb, ma)}), ` +
        `rest ${(sa - ma).toFixed(1)} → ${(sb - mb).toFixed(1)}; ${a}'s step: ${sa.toFixed(1)}\n`,
    );
  }
}

const store = new cores[0].MemoryEventStore();
await cores[0].runAgent("How hot is Pune?", model(1000, 0), registries[0], { ...options(1000), store, runId: "log" });
const log = await store.read("log");
const replay = [[], []];
for (let round = 0; round < 15; round++) {
  for (const index of [0, 1]) {
    const start = performance.now();
    cores[index].replayRun(log);
    replay[index].push(performance.now() - start);
  }
}
const [ra, rb] = replay.map((values) => (log.length / median(values)) * 1000);
process.stdout.write(`replay of a 1,000-step log: ${ra.toFixed(0)} → ${rb.toFixed(0)} events/s (${ratio(rb, ra)})\n`);

const batch = [[], []];
for (let round = 0; round < 4; round++) {
  for (const index of [0, 1]) {
    const slow = model(5, 20);
    const start = performance.now();
    await Promise.all(
      Array.from({ length: 1000 }, () => cores[index].runAgent("t", slow, registries[index], options(5))),
    );
    batch[index].push(performance.now() - start);
  }
}
const [ba, bb] = batch.map(median);
process.stdout.write(
  `1,000 concurrent 5-step runs, 20 ms per call: ${ba.toFixed(0)} → ${bb.toFixed(0)} ms wall (${ratio(bb, ba)})\n`,
);
