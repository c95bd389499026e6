import { type AgentResult, type EventStore, MemoryEventStore, replayRun, resumeAgent, runAgent } from "@agentloop/core";
import { type RunEvent, runHashSeed, type StoredEvent, stampEvent } from "@agentloop/core/store";
import { checkExecutions, checkOutcome } from "../harness.js";
import { outcomeOf, weatherModel, weatherRegistry } from "../harnesses/agentloop.js";
import { median } from "../measure.js";
import { executions, SYSTEM, TASK } from "../scenario.js";
import type { StoreKind } from "../stores.js";

const NAME = "agentloop";
const registry = weatherRegistry();

/** `events` as the log of run `runId`: the hash chain binds every event to its run's id, so a copy is sealed again. */
export function sealedFor(runId: string, events: readonly StoredEvent[]): StoredEvent[] {
  let previous: string | null = runHashSeed(runId);
  return events.map(({ seq, at, hash: _hash, ...event }) => {
    const stored = stampEvent(event as RunEvent, seq, at, previous);
    previous = stored.hash ?? null;
    return stored;
  });
}

/** A checked `steps`-step agentloop run, logged in `store` under `runId`; resolves to its milliseconds. */
export async function loggedRun(steps: number, store: EventStore | undefined, runId: string): Promise<number> {
  const before = executions.count;
  const options = { system: SYSTEM, maxSteps: steps, tokenBudget: Number.POSITIVE_INFINITY, store, runId };
  const start = performance.now();
  const result = await runAgent(TASK, weatherModel(steps, 0), registry, options);
  const ms = performance.now() - start;
  checkExecutions(NAME, before, executions.count, steps - 1);
  checkOutcome(NAME, outcomeOf(result), steps);
  return ms;
}

/** The event log of a checked `steps`-step run. */
export async function logOf(steps: number): Promise<StoredEvent[]> {
  const store = new MemoryEventStore();
  await loggedRun(steps, store, "log");
  return store.read("log");
}

/** Milliseconds to fold `events` through the machine with `replayRun` (the median of `rounds`), checked. */
export function measureReplay(events: readonly StoredEvent[], steps: number, rounds: number): number {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    const { result } = replayRun(events);
    samples.push(performance.now() - start);
    if (result === null) throw new Error(`${NAME}: the replay of a finished log did not finish`);
    checkOutcome(`${NAME} replay`, outcomeOf(result), steps);
  }
  return median(samples);
}

/**
 * Milliseconds for `resumeAgent` to continue `events` cut just before the last model reply: it
 * reads and replays the log, re-serves every logged reply and result, and calls the model once.
 * Checked: the run ends as the original did, and no tool runs again.
 */
export async function measureResume(events: readonly StoredEvent[], steps: number, rounds: number): Promise<number> {
  const cut = sealedFor(
    "cut",
    events.slice(
      0,
      events.findLastIndex((event) => event.type === "model.replied"),
    ),
  );
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const store = new MemoryEventStore();
    for (const event of cut) await store.append("cut", event);
    const before = executions.count;
    const start = performance.now();
    const result: AgentResult = await resumeAgent("cut", weatherModel(steps, 0), registry, { store });
    samples.push(performance.now() - start);
    checkExecutions(`${NAME} resume`, before, executions.count, 0);
    checkOutcome(`${NAME} resume`, outcomeOf(result), steps);
  }
  return median(samples);
}

/** A store's cost per event, in microseconds. */
export interface StoreCost {
  readonly append: number;
  readonly read: number;
  /** What logging adds to a live run, per logged event: the run with the store minus the run without. */
  readonly inRun: number;
}

/**
 * Appends `events` to a fresh store and reads them back, then runs `steps`-step runs with the store
 * and without one, back to back for `sampleMs` each; medians of `rounds` rounds.
 */
export async function measureStore(
  kind: StoreKind,
  events: readonly StoredEvent[],
  steps: number,
  plan: { readonly rounds: number; readonly sampleMs: number },
): Promise<StoreCost> {
  const appends: number[] = [];
  const reads: number[] = [];
  const withStore: number[] = [];
  const without: number[] = [];
  let runs = 0;
  const sample = async (store: EventStore | undefined) => {
    let total = 0;
    let count = 0;
    do {
      total += await loggedRun(steps, store, `run-${runs++}`);
      count++;
    } while (total < plan.sampleMs);
    return total / count;
  };
  await sample(undefined);
  for (let round = 0; round < plan.rounds; round++) {
    const { store, close } = kind.open();
    try {
      const copy = sealedFor("copy", events);
      let start = performance.now();
      for (const event of copy) await store.append("copy", event);
      appends.push(performance.now() - start);
      start = performance.now();
      const back = await store.read("copy");
      reads.push(performance.now() - start);
      if (back.length !== events.length)
        throw new Error(`${kind.name}: read ${back.length} of ${events.length} events`);
      withStore.push(await sample(store));
      without.push(await sample(undefined));
    } finally {
      close();
    }
  }
  const perEvent = (ms: number) => (ms * 1000) / events.length;
  return {
    append: perEvent(median(appends)),
    read: perEvent(median(reads)),
    inRun: perEvent(median(withStore) - median(without)),
  };
}
