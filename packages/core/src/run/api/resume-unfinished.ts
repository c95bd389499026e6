import type { Model, StoredEvent } from "../../data/index.js";
import { EventLogError, type EventStore, type Replay, replayRun, startedOf } from "../../log/index.js";
import type { ToolRegistry } from "../../tools/index.js";
import { resumeLocked } from "./resume.js";
import { resumableOptions } from "./resume-options.js";
import type { RunOptions } from "./run-agent.js";

/** What runs are resumed with: the model and tools they were started with, and the options a resume takes. */
export interface UnfinishedRuns {
  readonly model: Model;
  readonly registry: ToolRegistry;
  /** The run's options; only those a resume takes are used (`approve`, the safeguards, the models, the listeners), the rest are the log's. */
  readonly options?: Omit<RunOptions, "store" | "runId">;
}

/** How a sweep goes. */
export interface SweepSettings {
  /** Aborting it stops the sweep: no further run is taken, and the run in progress is cancelled as `signal` cancels a run. */
  readonly signal?: AbortSignal;
  /** Told of each run whose resume failed (it is listed in `skipped`); without it, the sweep ends by throwing an `AggregateError` of them. */
  readonly onError?: (runId: string, error: unknown) => void;
}

/** What a sweep did: the runs it took over (each to its end or to a pause for a person), and the unfinished runs it left. */
export interface SweepResult {
  readonly resumed: string[];
  readonly skipped: string[];
}

/**
 * Takes over every run of `store` whose process died mid-step: each is held by its lock
 * (`store.acquire`), read again under it, and resumed as `resumeAgent` resumes it when it is still
 * unfinished and waits for no person. Left (`skipped`): a run that waits for an approval, an answer or
 * a child's pause; a run another writer holds (a live process, or another sweep that took it first);
 * a child run (its parent's resume takes it up); a run that failed. N processes sweeping one store at
 * once take each run exactly once, since a run is resumed only by the holder of its lock, and only
 * while its log is unfinished. Runs are taken one at a time, in the order `list` gives them. Throws a
 * `TypeError` for a store without `acquire`: without a lock, two sweeps could run the same run.
 */
export async function resumeUnfinished(
  store: EventStore,
  run: UnfinishedRuns,
  settings: SweepSettings = {},
): Promise<SweepResult> {
  if (typeof store.acquire !== "function") {
    throw new TypeError("resumeUnfinished needs a store that can lock a run (acquire): one writer per run");
  }
  const resumed: string[] = [];
  const skipped: string[] = [];
  const failed: unknown[] = [];
  for (const { runId, outcome } of await store.list()) {
    if (settings.signal?.aborted) break;
    if (outcome !== null) continue;
    try {
      if (await takeOver(store, runId, run, settings.signal)) resumed.push(runId);
      else skipped.push(runId);
    } catch (error) {
      skipped.push(runId);
      if (settings.onError === undefined) failed.push(error);
      else settings.onError(runId, error);
    }
  }
  if (failed.length > 0) {
    throw new AggregateError(failed, `resumeUnfinished: ${failed.length} runs could not be resumed`);
  }
  return { resumed, skipped };
}

/** Resumes run `runId` when this process can hold it and it still needs taking over; whether it did. */
async function takeOver(
  store: EventStore,
  runId: string,
  run: UnfinishedRuns,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const lock = await tryAcquire(store, runId);
  if (lock === null) return false;
  try {
    // Under the lock: another sweep may have finished it, or it may wait for a person.
    const events = await store.read(runId);
    if (!needsTakingOver(events, runId)) return false;
    const options = { ...resumableOptions(run.options ?? {}), store };
    const signals = [options.signal, signal].filter((each) => each !== undefined);
    const merged = signals.length === 0 ? {} : { signal: AbortSignal.any(signals) };
    await resumeLocked(runId, run.model, run.registry, { ...options, ...merged });
    return true;
  } finally {
    await lock.release();
  }
}

/** The run's lock, or null when another writer holds it. */
async function tryAcquire(store: EventStore, runId: string): Promise<{ release(): Promise<void> } | null> {
  try {
    return (await store.acquire?.(runId)) ?? null;
  } catch (error) {
    if (error instanceof EventLogError) return null;
    throw error;
  }
}

/**
 * Whether a log read under its run's lock is one a sweep takes over: a top-level run that is not
 * finished (a machine that ended without its `run.finished` logged counts: the resume logs it) and
 * waits for no person's decision or answer, its own or a child's.
 */
export function needsTakingOver(events: readonly StoredEvent[], runId: string): boolean {
  const started = startedOf(events);
  if (started === undefined || started.parent !== undefined) return false;
  const last = events.at(-1)?.type;
  if (last === "run.finished" || last === "run.anchored") return false;
  return !waitsForPerson(replayRun(events, { runId }));
}

/** Whether the run waits for a person and for nothing else: decisions, answers, or what waits below a call paused in its child. */
function waitsForPerson(replay: Replay): boolean {
  if (replay.result !== null) return false;
  const { snapshot } = replay;
  return (
    snapshot.matches({ executingTools: "awaitingDecision" }) || snapshot.matches({ executingTools: "awaitingInput" })
  );
}
