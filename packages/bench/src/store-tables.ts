import type { StoreLoad, StoreLoadPlan } from "./metrics/store-load.js";
import type { RunCost, RunCostPlan } from "./metrics/store-run-cost.js";
import { count, micros, ratio, table } from "./report.js";

/** Appended events per second that SQLite must reach under the plan's concurrent runs. */
const SQLITE_TARGET = 20_000;
/** How much slower the last appends of a long log may be than the first. */
const FLAT = 1.3;

/** Each store under concurrent appends and along one long log, then the store targets with their verdicts. */
export function storeLoadTable(
  plan: StoreLoadPlan,
  loads: readonly { name: string; load: StoreLoad | string }[],
): string {
  const { runs, logLength, window } = plan;
  const rows = loads.map(({ name, load }) => {
    if (typeof load === "string") return [name, `not measured: ${load}`, "", "", ""];
    const { concurrent, early, late } = load;
    const along = early === null || late === null ? ["", "", ""] : [micros(early), micros(late), ratio(late / early)];
    return [name, count(concurrent), ...along];
  });
  const loadTable = table(
    [
      "event store",
      `appends/s, ${count(runs)} runs at once`,
      `µs per append, first ${count(window)} of a ${count(logLength)}-event log`,
      `last ${count(window)}`,
      "last ÷ first",
    ],
    rows,
  );
  const sqlite = loads.find(({ name }) => name.startsWith("SqliteEventStore"))?.load;
  const measured = typeof sqlite === "object" ? sqlite : null;
  const growth = measured?.early && measured.late ? measured.late / measured.early : Number.NaN;
  const verdict = (met: boolean) => (met ? "met" : "NOT met");
  const targets = table(
    ["target (stores)", "measured", "verdict"],
    [
      [
        `SQLite ≥ ${count(SQLITE_TARGET)} appended events/s under ${count(runs)} concurrent runs`,
        measured === null ? "n/a" : count(measured.concurrent),
        verdict((measured?.concurrent ?? 0) >= SQLITE_TARGET),
      ],
      [`SQLite appends flat with log length (last ÷ first ≤ ${FLAT}×)`, ratio(growth), verdict(growth <= FLAT)],
    ],
  );
  return `${loadTable}\n\n${targets}`;
}

/** What each store adds to a live run: µs per step and per run, in wall time and in CPU time, against the same runs without a store. */
export function runCostTable(plan: RunCostPlan, costs: readonly { name: string; cost: RunCost | string }[]): string {
  const rows = costs.map(({ name, cost }) =>
    typeof cost === "string"
      ? [name, `not measured: ${cost}`, "", "", ""]
      : [name, micros(cost.perStep), micros(cost.perRun), micros(cost.cpuPerStep), micros(cost.cpuPerRun)],
  );
  return table(
    [
      "event store",
      `+ µs per step (runs of 1 and ${count(plan.steps)} steps)`,
      "+ µs per run",
      "+ CPU µs per step",
      "+ CPU µs per run",
    ],
    rows,
  );
}
