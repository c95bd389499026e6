import type { StoredEvent } from "@agentloop/core/store";
import type { StoreKind } from "../stores.js";
import { sealedFor } from "./event-log.js";

/** The sizes of the store load measurements. */
export interface StoreLoadPlan {
  /** Runs appending to one store object at once. */
  readonly runs: number;
  /** Events each of them appends at most, and the milliseconds after which they stop early (a slow store). */
  readonly eventsPerRun: number;
  readonly maxMs: number;
  /** The length of the one long log, and how many of its first and last appends are timed. */
  readonly logLength: number;
  readonly window: number;
}

/** What one store did under load. */
export interface StoreLoad {
  /** Appended events per second, `runs` runs at once, each holding its lock and awaiting each append before the next (as a run does). */
  readonly concurrent: number;
  /** Microseconds per append over the first and the last `window` appends of one `logLength`-event log; `null` when not measured. */
  readonly early: number | null;
  readonly late: number | null;
}

/** `length` events of run `runId`, sealed for it: the template's start, then its tool steps again and again. */
function logFor(template: readonly StoredEvent[], length: number, runId: string): StoredEvent[] {
  const body = template.slice(1, -1);
  const events = [template[0] as StoredEvent];
  for (let index = 0; events.length < length; index++) {
    events.push({ ...(body[index % body.length] as StoredEvent), seq: events.length });
  }
  return sealedFor(runId, events);
}

/**
 * Appends per second under `plan.runs` concurrent runs, and, with `longLog`, the cost of the
 * first and the last appends of one long log (whether appends stay flat as a log grows). The logs
 * are made and sealed before the clock starts; every run is read back and checked after it.
 */
export async function measureStoreLoad(
  kind: StoreKind,
  template: readonly StoredEvent[],
  plan: StoreLoadPlan,
  longLog: boolean,
): Promise<StoreLoad> {
  const runs = Array.from({ length: plan.runs }, (_, n) => logFor(template, plan.eventsPerRun, `load-${n}`));
  const { store, close } = kind.open();
  let concurrent: number;
  try {
    let appended = 0;
    const start = performance.now();
    const deadline = start + plan.maxMs;
    const lengths = await Promise.all(
      runs.map(async (events, n) => {
        // As runAgent does: the run's lock once, then its appends, each awaited before the next.
        const lock = await store.acquire?.(`load-${n}`);
        let length = 0;
        for (const event of events) {
          if (performance.now() > deadline) break;
          await store.append(`load-${n}`, event);
          length++;
        }
        await lock?.release();
        appended += length;
        return length;
      }),
    );
    concurrent = (appended / (performance.now() - start)) * 1000;
    const listed = new Map((await store.list()).map((run) => [run.runId, run.events]));
    if (lengths.some((length, n) => (listed.get(`load-${n}`) ?? 0) !== length)) {
      throw new Error(`${kind.name}: the load's runs did not read back whole`);
    }
  } finally {
    close();
  }
  if (!longLog) return { concurrent, early: null, late: null };
  return {
    concurrent,
    ...(await measureLongLog(kind, logFor(template, plan.logLength, "long"), plan.window)),
  };
}

/**
 * Microseconds per append, each awaited, over the first and the last `window` appends of
 * `events`; the appends between are made without waiting for each other, which a store may
 * commit in groups, so that a long log is quick to make.
 */
async function measureLongLog(
  kind: StoreKind,
  events: readonly StoredEvent[],
  window: number,
): Promise<{ early: number; late: number }> {
  const { store, close } = kind.open();
  try {
    const lock = await store.acquire?.("long");
    const timed = async (from: number, to: number) => {
      const start = performance.now();
      for (const event of events.slice(from, to)) await store.append("long", event);
      return ((performance.now() - start) * 1000) / (to - from);
    };
    const early = await timed(0, window);
    for (let from = window; from < events.length - window; from += 1000) {
      const to = Math.min(from + 1000, events.length - window);
      await Promise.all(events.slice(from, to).map((event) => store.append("long", event)));
    }
    const late = await timed(events.length - window, events.length);
    await lock?.release();
    if ((await store.read("long")).length !== events.length) {
      throw new Error(`${kind.name}: the long log did not read back whole`);
    }
    return { early, late };
  } finally {
    close();
  }
}
