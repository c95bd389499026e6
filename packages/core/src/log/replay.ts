import type { AgentResult, RunSettings, StoredEvent } from "../data/index.js";
import type { AgentContext, AgentSnapshot } from "../decide/index.js";
import { EventLogError } from "./event-log-error.js";
import { RunFold } from "./run-fold.js";

export { outcomeOf } from "./run-fold.js";

/** How to replay: `runId` names the run in errors; `settings` replace the logged ones (forks change limits). */
export interface ReplayOptions {
  readonly runId?: string;
  readonly settings?: RunSettings;
  /**
   * Stop, instead of failing, at a turn's end (`run.finished`, `user.messaged`) that comes while
   * the run is still going: other settings (a fork's larger limits) may keep going a turn that the
   * original ended.
   */
  readonly partial?: boolean;
}

/** The machine's state after a log was folded through it. */
export interface Replay {
  readonly snapshot: AgentSnapshot;
  readonly context: AgentContext;
  /** The last turn's result once the log reaches a final state; `null` for a run still going (or interrupted). */
  readonly result: AgentResult | null;
  /** Ids of the calls whose `tool.started` is logged without their `tool.finished`: the process died while they ran. */
  readonly interrupted: ReadonlySet<string>;
  /** Whether the log ends with `run.finished`. */
  readonly finished: boolean;
  /** The log's schema version. */
  readonly schemaVersion: number;
}

/**
 * Rebuilds a run from its log by feeding its events, in order, to the machine started with the
 * logged settings and driven by nothing: the same context and `AgentResult` as the live run,
 * calling no model and running no tool. A conversation's later turns (`user.messaged` after
 * `run.finished`) start the machine again from the turn before. Throws `EventLogError`, naming
 * the run and the position, for an event that does not fit the run where it stands: among them a
 * `tool.started` for a call that is not running or that names another tool, a `tool.finished`
 * without its `tool.started`, a decision for a call that waits for none, a call id used twice,
 * and an end whose outcome differs from the one the events lead to.
 */
export function replayRun(events: readonly StoredEvent[], options: ReplayOptions = {}): Replay {
  const { replay, consumed } = foldEvents(events, options);
  if (consumed < events.length) {
    const after = replay.finished ? "run.finished" : "the run reached its end";
    throw misfit(events, consumed, `comes after ${after}`, options.runId);
  }
  return replay;
}

/**
 * Folds events until the log ends or the machine reaches a final state not followed by more of the
 * conversation; returns where it stands and how many events were used. Events that do not fit
 * the run throw `EventLogError`.
 */
export function foldEvents(
  events: readonly StoredEvent[],
  { runId = "", settings, partial = false }: ReplayOptions = {},
): { replay: Replay; consumed: number } {
  const fold = new RunFold({ runId, ...(settings === undefined ? {} : { settings }) });
  if (events.length === 0) throw misfit(events, 0, "must be 'run.started'", runId);
  let position = 0;
  for (; position < events.length; position++) {
    const event = events[position] as StoredEvent;
    if (fold.endsBefore(event, partial)) break;
    fold.apply(event);
  }
  fold.stop();
  const { snapshot, result, interrupted, finished, schemaVersion } = fold;
  const replay = { snapshot, context: snapshot.context, result, interrupted, finished, schemaVersion };
  return { replay, consumed: position };
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
