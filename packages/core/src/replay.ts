import { createActor, type SnapshotFrom } from "xstate";
import type { AgentContext } from "./agent-context.js";
import { agentMachine } from "./agent-machine.js";
import { EventLogError } from "./errors.js";
import type { RunSettings, StoredEvent } from "./event-log.js";
import type { AgentResult } from "./types.js";

/**
 * The machine fed the logged events makes the same pure decisions as the live run; nobody drives
 * it, so it calls nothing. Nobody would act on its requests either, so they are not even built.
 */
const replayMachine = agentMachine.provide({
  actions: { requestModelReply: () => {}, requestToolRun: () => {}, requestDecision: () => {} },
});

/** How to replay: `runId` names the run in errors; `settings` replace the logged ones (forks change limits). */
export interface ReplayOptions {
  readonly runId?: string;
  readonly settings?: RunSettings;
}

/** The machine's state after a log was folded through it. */
export interface Replay {
  readonly snapshot: SnapshotFrom<typeof agentMachine>;
  readonly context: AgentContext;
  /** The run's result once the log reaches a final state; `null` for a run still going (or interrupted). */
  readonly result: AgentResult | null;
}

/**
 * Rebuilds a run from its log by feeding its events, in order, to the machine started with the
 * logged settings and driven by nothing: the same context and `AgentResult` as the live
 * run, calling no model and running no tool. Throws `EventLogError` for an event that does not fit
 * the run at its position; `runId` names the run in that error.
 */
export function replayRun(events: readonly StoredEvent[], options: ReplayOptions = {}): Replay {
  const { snapshot, consumed } = foldEvents(events, options);
  const fail = (position: number, problem: string) => misfit(events, position, problem, options.runId);
  const [end, ...extra] = events.slice(consumed);
  if (end !== undefined) {
    if (end.type !== "run.finished") throw fail(consumed, "comes after the run reached its end");
    const { status, answer, steps, tokens } = snapshot.context;
    const replayed = { status, answer, steps, tokens };
    if (JSON.stringify(end.outcome) !== JSON.stringify(replayed)) {
      throw fail(
        consumed,
        `records ${JSON.stringify(end.outcome)}, but the events lead to ${JSON.stringify(replayed)}`,
      );
    }
    if (extra.length > 0) throw fail(consumed + 1, "comes after run.finished");
  }
  return replayOf(snapshot);
}

/**
 * Folds events until the log ends or the machine reaches a final state; returns the snapshot and
 * how many events were used. Events that do not fit the run throw `EventLogError`: among them a
 * `tool.finished` whose `tool.started` is missing, since the live effects log one before the other.
 */
export function foldEvents(
  events: readonly StoredEvent[],
  { runId, settings }: ReplayOptions = {},
): { snapshot: SnapshotFrom<typeof agentMachine>; consumed: number } {
  const fail = (position: number, problem: string) => misfit(events, position, problem, runId);
  const [first] = events;
  if (first?.type !== "run.started") throw fail(0, "must be 'run.started'");
  const actor = createActor(replayMachine, { input: settings ?? first.settings }).start();
  let snapshot = actor.getSnapshot();
  let started: string | null = null;
  let position = 1;
  for (; position < events.length && snapshot.status === "active"; position++) {
    const event = events[position] as StoredEvent;
    switch (event.type) {
      case "run.started":
        throw fail(position, "repeats the start");
      case "run.finished":
        throw fail(position, "comes before the run reached its end");
      case "tool.started":
        if (started !== null || !isRunning(snapshot, event.callId))
          throw fail(position, "is for no call waiting to run");
        started = event.callId;
        continue;
      case "tool.finished":
        if (started !== event.callId) throw fail(position, `has no tool.started for call '${event.callId}' before it`);
        started = null;
    }
    // The stamps (`seq`, `at`) ride along: no guard or assign reads them.
    actor.send(event);
    // XState keeps the very same snapshot for an event no transition takes.
    const next = actor.getSnapshot();
    if (next === snapshot) throw fail(position, `does not fit the state ${JSON.stringify(snapshot.value)}`);
    snapshot = next;
  }
  actor.stop();
  return { snapshot, consumed: position };
}

/** Whether the machine is running `callId` (the call a `tool.started` must be for). */
function isRunning(snapshot: SnapshotFrom<typeof agentMachine>, callId: string): boolean {
  return snapshot.matches({ executingTools: "runningTool" }) && snapshot.context.pendingCalls[0]?.id === callId;
}

/** The replay of a snapshot: its context, and its output once it is final. */
export function replayOf(snapshot: SnapshotFrom<typeof agentMachine>): Replay {
  return { snapshot, context: snapshot.context, result: snapshot.status === "done" ? (snapshot.output ?? null) : null };
}

function misfit(events: readonly StoredEvent[], position: number, problem: string, runId = ""): EventLogError {
  const event = events[position];
  const run = runId === "" ? "" : `run '${runId}': `;
  return new EventLogError(`${run}event ${position} (${event?.type ?? "missing"}) ${problem}`, {
    runId,
    position,
    intact: events.slice(0, position),
  });
}
