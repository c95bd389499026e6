import type { Harness } from "./harness.js";
import { type BatchPeaks, idealMs } from "./metrics/concurrency.js";
import type { StoreCost } from "./metrics/event-log.js";
import type { Latency } from "./metrics/latency.js";
import type { LongRuns } from "./metrics/long-runs.js";
import type { ParallelCalls } from "./metrics/parallel-calls.js";
import type { PatternRow } from "./metrics/patterns.js";
import type { RestateCost } from "./metrics/restate.js";
import type { ValidationCost } from "./metrics/validation.js";
import type { Plan } from "./plan.js";
import { bytes, count, micros, millis, ratio, table } from "./report.js";

/** Everything one bench run measured. */
export interface Results {
  readonly plan: Plan;
  readonly harnesses: readonly Harness[];
  readonly latency: Latency;
  /** Per step at the long lengths, floor and agentloop only. */
  readonly longRuns: LongRuns;
  /** Wall milliseconds of a reply of three slow calls, agentloop and the Vercel AI SDK. */
  readonly parallelCalls: ParallelCalls;
  /** Live bytes held after a `plan.longSteps`-step run, by harness name. */
  readonly heap: ReadonlyMap<string, number>;
  /** Wall milliseconds of the concurrent batch, by harness name. */
  readonly concurrency: ReadonlyMap<string, number>;
  /** Wall milliseconds and peak heap of the larger batch, floor and agentloop. */
  readonly bigBatch: BatchPeaks;
  readonly replay: { readonly events: number; readonly ms: number };
  readonly resume: { readonly events: number; readonly ms: number };
  readonly stores: { readonly events: number; readonly rows: readonly { name: string; cost: StoreCost | string }[] };
  readonly validation: readonly ValidationCost[];
  readonly patterns: readonly PatternRow[];
  /** agentloop on Restate, or why it was not measured. */
  readonly restate: RestateCost | string;
}

const AGENTLOOP = "agentloop";

function perStep(results: Results, name: string, steps: number): number {
  return results.latency.get(name)?.get(steps) ?? Number.NaN;
}

/** Per step at any measured length: the interleaved lengths, or the long runs. */
function perStepAt(results: Results, name: string, steps: number): number {
  return results.latency.get(name)?.get(steps) ?? results.longRuns.get(name)?.get(steps) ?? Number.NaN;
}

function growth(results: Results, name: string): number {
  const { lengths } = results.plan;
  return perStep(results, name, lengths.at(-1) ?? 0) / perStep(results, name, lengths[0] ?? 0);
}

/** Growth from the first interleaved length to the longest long run. */
function longGrowth(results: Results, name: string): number {
  const longest = results.plan.longRuns.lengths.at(-1) ?? 0;
  return perStepAt(results, name, longest) / perStep(results, name, results.plan.lengths[0] ?? 0);
}

/** The long runs and the reply of three slow calls: agentloop next to the floor, and next to the Vercel AI SDK. */
export function longAndParallelTable(results: Results): string {
  const { plan } = results;
  const floor = results.harnesses[0]?.name ?? "";
  const rows = plan.longRuns.lengths.map((length) => {
    const ours = perStepAt(results, AGENTLOOP, length);
    const base = perStepAt(results, floor, length);
    return [`per step, ${count(length)} steps`, `${micros(base)}`, `${micros(ours)} (${ratio(ours / base)})`];
  });
  const longest = count(plan.longRuns.lengths.at(-1) ?? 0);
  rows.push([
    `growth ${count(plan.lengths[0] ?? 0)}→${longest} steps`,
    ratio(longGrowth(results, floor)),
    ratio(longGrowth(results, AGENTLOOP)),
  ]);
  const { ms } = plan.parallelCalls;
  const vercel = results.parallelCalls.get("Vercel AI SDK") ?? Number.NaN;
  const ours = results.parallelCalls.get(AGENTLOOP) ?? Number.NaN;
  rows.push([
    `a reply of three ${ms} ms calls, then the answer: wall (÷ the slowest call)`,
    `Vercel AI SDK ${millis(vercel)} (${ratio(vercel / ms)})`,
    `${millis(ours)} (${ratio(ours / ms)})`,
  ]);
  const { runs, steps, delayMs } = plan.bigBatch;
  const ideal = idealMs(plan.bigBatch);
  const batch = (name: string) => results.bigBatch.get(name) ?? { wallMs: Number.NaN, peakBytes: Number.NaN };
  const batchLabel = `${count(runs)} concurrent ${steps}-step runs, ${delayMs} ms per model call`;
  rows.push(
    [
      `${batchLabel}: wall (÷ ideal ${ideal} ms)`,
      `${millis(batch(floor).wallMs)} (${ratio(batch(floor).wallMs / ideal)})`,
      `${millis(batch(AGENTLOOP).wallMs)} (${ratio(batch(AGENTLOOP).wallMs / ideal)})`,
    ],
    [
      `${batchLabel}: peak heap above the start`,
      bytes(batch(floor).peakBytes),
      `${bytes(batch(AGENTLOOP).peakBytes)} (${ratio(batch(AGENTLOOP).peakBytes / batch(floor).peakBytes)})`,
    ],
  );
  return table(["long runs and parallel calls", floor, AGENTLOOP], rows);
}

/** One row per metric, one column per harness: the value and its ratio to the floor's. */
export function harnessTable(results: Results): string {
  const { plan, harnesses } = results;
  const floor = harnesses[0]?.name ?? "";
  const row = (label: string, value: (name: string) => number, format: (value: number) => string) => [
    label,
    ...harnesses.map(({ name }) => `${format(value(name))} (${ratio(value(name) / value(floor))})`),
  ];
  const { runs, steps, delayMs } = plan.concurrency;
  const ideal = idealMs(plan.concurrency);
  return table(
    ["metric", ...harnesses.map(({ name }) => name)],
    [
      ["version", ...harnesses.map(({ version }) => version)],
      row(
        `happy path (${plan.happySteps} steps), µs per run`,
        (name) => perStep(results, name, plan.happySteps) * plan.happySteps,
        micros,
      ),
      ...plan.lengths.map((length) =>
        row(`per step, ${count(length)} steps`, (name) => perStep(results, name, length), micros),
      ),
      [
        `growth ${count(plan.lengths[0] ?? 0)}→${count(plan.lengths.at(-1) ?? 0)} steps (per step, last ÷ first)`,
        ...harnesses.map(({ name }) => ratio(growth(results, name))),
      ],
      row(`live heap after a ${count(plan.longSteps)}-step run`, (name) => results.heap.get(name) ?? Number.NaN, bytes),
      [
        `${count(runs)} concurrent ${steps}-step runs, ${delayMs} ms per model call: wall (÷ ideal ${ideal} ms)`,
        ...harnesses.map(({ name }) => {
          const wall = results.concurrency.get(name) ?? Number.NaN;
          return `${millis(wall)} (${ratio(wall / ideal)})`;
        }),
      ],
    ],
  );
}

/** agentloop's event log: replay, resume, and each store's cost per event. */
export function eventLogTable(results: Results): string {
  const { plan, replay, resume, stores } = results;
  const liveRunMs = (perStep(results, AGENTLOOP, plan.longSteps) * plan.longSteps) / 1000;
  const rows = [
    [
      `replay of a ${count(plan.longSteps)}-step log (${count(replay.events)} events), replayRun`,
      `${millis(replay.ms)}: ${count((replay.events / replay.ms) * 1000)} events/s`,
    ],
    [
      `resume of a ${count(plan.longSteps)}-step log cut before its last reply (${count(resume.events)} events), resumeAgent`,
      `${millis(resume.ms)}: ${micros((resume.ms * 1000) / resume.events)} per logged event, ` +
        `${ratio(resume.ms / liveRunMs)} a live ${count(plan.longSteps)}-step run`,
    ],
    ...stores.rows.map(({ name, cost }) => [
      `store ${name}, ${count(stores.events)} events of a ${count(plan.storeSteps)}-step run`,
      typeof cost === "string"
        ? `not measured: ${cost}`
        : `append ${micros(cost.append)}/event, read ${micros(cost.read)}/event, ` +
          `in a live run +${micros(cost.inRun)}/event`,
    ]),
  ];
  return table(["agentloop event log", "result"], rows);
}

/** What checking a call's arguments costs, per kind of parameters. */
export function validationTable(results: Results): string {
  return table(
    ["tool arguments, per call", "check only (wouldRun)", "execute (check, run, encode)"],
    results.validation.map(({ label, checkUs, executeUs }) => [
      `validation, ${label}`,
      micros(checkUs),
      micros(executeUs),
    ]),
  );
}

/** What a backtracking pattern costs, what registration's risk check costs, and a linear-time engine beside them. */
export function patternTable(results: Results): string {
  return table(
    ["pattern checks", "result"],
    results.patterns.map(({ label, result }) => [`pattern, ${label}`, result]),
  );
}

/** This round's targets, each with what this run measured and whether it is met. */
export function targetsTable(results: Results): string {
  const { plan } = results;
  const floor = results.harnesses[0]?.name ?? "";
  const toFloor = (steps: number) => perStepAt(results, AGENTLOOP, steps) / perStepAt(results, floor, steps);
  const allLengths = [...plan.lengths, ...plan.longRuns.lengths];
  const perStepRatios = allLengths.map(toFloor);
  const happy = toFloor(plan.happySteps);
  const agentloopGrowth = longGrowth(results, AGENTLOOP);
  const batch = (name: string) => results.bigBatch.get(name) ?? { wallMs: Number.NaN, peakBytes: Number.NaN };
  const batchWall = batch(AGENTLOOP).wallMs / idealMs(plan.bigBatch);
  const batchPeak = batch(AGENTLOOP).peakBytes / batch(floor).peakBytes;
  const parallel = (results.parallelCalls.get(AGENTLOOP) ?? Number.NaN) / plan.parallelCalls.ms;
  const eventsPerSecond = (results.replay.events / results.replay.ms) * 1000;
  const liveRunMs = (perStep(results, AGENTLOOP, plan.longSteps) * plan.longSteps) / 1000;
  const resume = results.resume.ms / liveRunMs;
  const verdict = (met: boolean) => (met ? "met" : "NOT met");
  return table(
    ["target (agentloop)", "measured", "verdict"],
    [
      [
        "per step ≤ 8× the floor at every length",
        perStepRatios.map((value, index) => `${ratio(value)} at ${count(allLengths[index] ?? 0)}`).join(", "),
        verdict(perStepRatios.every((value) => value <= 8)),
      ],
      [
        `growth ${count(plan.lengths[0] ?? 0)}→${count(plan.longRuns.lengths.at(-1) ?? 0)} steps ≤ 1.3×`,
        ratio(agentloopGrowth),
        verdict(agentloopGrowth <= 1.3),
      ],
      ["happy path ≤ 8× the floor", ratio(happy), verdict(happy <= 8)],
      [
        `${count(plan.bigBatch.runs)} concurrent runs ≤ 5× the ideal wall time`,
        ratio(batchWall),
        verdict(batchWall <= 5),
      ],
      [
        `${count(plan.bigBatch.runs)} concurrent runs: peak heap ≤ 2× the floor's`,
        ratio(batchPeak),
        verdict(batchPeak <= 2),
      ],
      [
        `a reply of three ${plan.parallelCalls.ms} ms calls ≤ 1.2× the slowest call`,
        ratio(parallel),
        verdict(parallel <= 1.2),
      ],
      ["replay ≥ 150,000 events/s", count(eventsPerSecond), verdict(eventsPerSecond >= 150_000)],
      ["resume ≤ 0.5× a live run of the same length", ratio(resume), verdict(resume <= 0.5)],
    ],
  );
}

/** agentloop on Restate: per step against runAgent in one process, and a concurrent batch on one and two service processes. */
export function restateTable(results: Results): string {
  const { plan, restate } = results;
  const { runs, steps, delayMs } = plan.restate.batch;
  const ideal = steps * delayMs;
  const batchLabel = (processes: number) =>
    `${count(runs)} concurrent ${steps}-step runs, ${delayMs} ms per model call, ${processes} service process${processes > 1 ? "es" : ""}: wall (÷ ideal ${ideal} ms)`;
  const labels = [
    ...plan.restate.lengths.map(
      (length) => `per step, ${count(length)} steps: on Restate, and runAgent in one process`,
    ),
    ...plan.restate.lengths.map(
      (length) => `per step, ${count(length)} steps: on Restate, and a bare workflow of the same ctx.run calls`,
    ),
    batchLabel(1),
    batchLabel(2),
  ];
  if (typeof restate === "string")
    return table(
      ["agentloop on Restate", "result"],
      labels.map((label) => [label, `not measured: ${restate}`]),
    );
  const perStepRows = plan.restate.lengths.map((length, index) => {
    const durable = restate.perStep.get(length) ?? Number.NaN;
    const local = perStep(results, AGENTLOOP, length);
    return [labels[index] as string, `${micros(durable)} and ${micros(local)} (${ratio(durable / local)})`];
  });
  const bareRows = plan.restate.lengths.map((length, index) => {
    const durable = restate.perStep.get(length) ?? Number.NaN;
    const bare = restate.bare.get(length) ?? Number.NaN;
    const label = labels[plan.restate.lengths.length + index] as string;
    return [label, `${micros(durable)} and ${micros(bare)} (${ratio(durable / bare)})`];
  });
  const one = restate.batch.get(1) ?? Number.NaN;
  const batchRow = (processes: number) => {
    const wall = restate.batch.get(processes) ?? Number.NaN;
    const perSecond = `${count((runs / wall) * 1000)} runs/s`;
    const versus = processes === 1 ? "" : `, ${ratio(one / wall)} the throughput of one`;
    return [batchLabel(processes), `${millis(wall)} (${ratio(wall / ideal)}): ${perSecond}${versus}`];
  };
  return table(["agentloop on Restate", "result"], [...perStepRows, ...bareRows, batchRow(1), batchRow(2)]);
}
