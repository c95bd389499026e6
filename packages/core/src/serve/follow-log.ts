import type { AgentResult } from "../data/index.js";
import { EventLogError, type EventStore, readIntact, replayRun } from "../log/index.js";
import { type AgentStreamEvent, pausedResult, readTree, replayedOf } from "../run/index.js";
import { liveRun } from "./live-runs.js";
import { logChanges } from "./log-changes.js";
import { LogTeller } from "./log-teller.js";
import { type RunFeed, runFeed } from "./run-feed.js";

/** Milliseconds between two reads of a log whose store tells of no commit. */
const LOOK_AGAIN_MS = 100;
/** Milliseconds between two asks whether the writer of a followed turn is still there (while its log looks paused: `PAUSE_MS`). */
const QUIET_MS = 1_000;
const PAUSE_MS = 200;

/** How to follow a turn: from which event of the log on it is told, and what stops the following. */
export interface FollowSettings {
  /** The position of the turn's first event in the log: what came before is read, not told. */
  readonly from: number;
  /** Aborting it stops the following (a client that left), never the run. */
  readonly signal?: AbortSignal;
}

/**
 * Follows the turn of run `runId` that a writer drives now — another process, or this one — from
 * its log alone, as the events it tells (`LogTeller`), to its end: the `finished` of its
 * `run.finished`, or, once its writer let go of a run that waits for a person, the paused result
 * (with a `decision-requested` per waiting call). The log is read again each time the store tells
 * of a commit (`watch`), or every 100 milliseconds for a store that cannot. A writer that went
 * away leaving the turn unfinished (its process died) rejects the feed: its next message
 * finishes it. Runs nothing and writes nothing.
 */
export function followLog(store: EventStore, runId: string, settings: FollowSettings): RunFeed {
  return runFeed((onEvent) => tail(store, runId, settings, onEvent));
}

async function tail(
  store: EventStore,
  runId: string,
  { from, signal }: FollowSettings,
  onEvent: (event: AgentStreamEvent) => void,
): Promise<AgentResult> {
  const changes = logChanges(store);
  const teller = new LogTeller(runId, from, onEvent);
  try {
    await changes.ready;
    let asked = Date.now();
    for (;;) {
      signal?.throwIfAborted();
      const events = await readIntact(store, runId);
      await teller.advance(store, events);
      const end = teller.finishedAt;
      if (end !== undefined) {
        const result = replayRun(events.slice(0, end + 1), { runId }).result;
        if (result !== null) return told(onEvent, { ...result, runId });
      }
      const replay = replayRun(events, { runId });
      const tree =
        replay.result === null
          ? await readTree(store, runId, { events, root: replayedOf(replay), waitingOnly: true })
          : undefined;
      const waiting = tree !== undefined && (tree.treeWaiting.length > 0 || tree.treeQuestions.length > 0);
      const every = waiting ? PAUSE_MS : QUIET_MS;
      if (Date.now() - asked >= every) {
        asked = Date.now();
        if (!(await isHeld(store, runId))) {
          // The writer let go: what it logged last is read before saying where the turn stands.
          if ((await readIntact(store, runId)).length !== events.length) continue;
          if (!waiting) throw new Error(`the turn of run '${runId}' was cut off: the process that drove it is gone`);
          const paused = { ...pausedResult(replay.context), runId };
          for (const call of paused.pendingApprovals ?? []) teller.ask(call);
          return told(onEvent, paused);
        }
      }
      await changes.wait(teller.runIds, changes.told() ? every : LOOK_AGAIN_MS, signal);
    }
  } finally {
    await changes.close();
  }
}

function told(onEvent: (event: AgentStreamEvent) => void, result: AgentResult): AgentResult {
  onEvent({ type: "finished", result });
  return result;
}

/**
 * Whether a writer holds run `runId` of `store` now: a run this process drives, or one whose lock
 * another holds (another process's driver, or a sweep). Asked by taking the lock and giving it back
 * at once; a store that cannot lock holds nothing.
 */
export async function isHeld(store: EventStore, runId: string): Promise<boolean> {
  if (liveRun(store, runId) !== undefined) return true;
  if (store.acquire === undefined) return false;
  let lock: Awaited<ReturnType<NonNullable<EventStore["acquire"]>>>;
  try {
    lock = await store.acquire(runId);
  } catch (error) {
    if (error instanceof EventLogError) return true;
    throw error;
  }
  await lock.release();
  return false;
}
