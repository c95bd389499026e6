import { type Actor, createActor } from "xstate";
import type { AgentContext } from "./agent-context.js";
import { type AgentSnapshot, agentMachine } from "./agent-machine.js";
import { usedCallIds } from "./assign-call-ids.js";
import { EventLogError } from "./event-log-error.js";
import type { RunOutcome, RunSettings, StoredEvent } from "./events.js";
import { EVENT_LOG_SCHEMA_VERSION, logFlags } from "./log-flags.js";
import { messagesOf } from "./transcript.js";
import type { AgentResult } from "./types.js";

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
  const fail = (position: number, problem: string) => misfit(events, position, problem, runId);
  const [first] = events;
  if (first?.type !== "run.started") throw fail(0, "must be 'run.started'");
  const schemaVersion = first.schemaVersion;
  const input = { settings: settings ?? first.settings, schemaVersion };
  const flags = logFlags(schemaVersion);
  let actor: Actor<typeof agentMachine> = createActor(agentMachine, { input }).start();
  let snapshot = actor.getSnapshot();
  const started = new Set<string>();
  const ids = usedCallIds(messagesOf(snapshot.context.transcript));
  let finished = false;
  let position = 1;
  fold: for (; position < events.length; position++) {
    const event = events[position] as StoredEvent;
    if (snapshot.status !== "active") {
      if (event.type === "run.finished" && !finished) {
        const problem = outcomeProblem(event.outcome, snapshot, schemaVersion);
        if (problem !== null) throw fail(position, problem);
        finished = true;
        continue;
      }
      if (event.type !== "user.messaged" || !finished) break;
      actor.stop();
      actor = createActor(agentMachine, {
        input: { ...input, continues: { context: snapshot.context, message: event.content } },
      });
      snapshot = actor.start().getSnapshot();
      finished = false;
      continue;
    }
    switch (event.type) {
      case "run.started":
        throw fail(position, "repeats the start");
      case "run.finished":
      case "user.messaged":
        if (partial) break fold;
        throw fail(position, "comes before the run reached its end");
      case "tool.started": {
        const problem = startProblem(snapshot, event, started);
        if (problem !== null) throw fail(position, problem);
        started.add(event.callId);
        continue;
      }
      case "tool.finished":
        if (!started.delete(event.callId)) {
          throw fail(position, `has no tool.started for call '${event.callId}' before it`);
        }
        break;
      case "model.replied":
        if (flags.uniqueCallIds) {
          for (const call of event.reply.toolCalls) {
            if (ids.has(call.id)) throw fail(position, `uses the call id '${call.id}' a second time in the run`);
            ids.add(call.id);
          }
        }
    }
    // The stamps (`seq`, `at`, `hash`) ride along: no guard or assign reads them.
    actor.send(event);
    // XState keeps the very same snapshot for an event no transition takes.
    const next = actor.getSnapshot();
    if (next === snapshot) throw fail(position, `does not fit the state ${JSON.stringify(snapshot.value)}`);
    snapshot = next;
  }
  actor.stop();
  const result = snapshot.status === "done" ? (snapshot.output ?? null) : null;
  const replay = { snapshot, context: snapshot.context, result, interrupted: started, finished, schemaVersion };
  return { replay, consumed: position };
}

/** Why a `tool.started` does not fit: its call is not running, was started already, or is another tool's. */
function startProblem(
  snapshot: AgentSnapshot,
  event: Extract<StoredEvent, { type: "tool.started" }>,
  started: ReadonlySet<string>,
): string | null {
  const { batch } = snapshot.context;
  const index = batch?.find(event.callId, "running") ?? -1;
  if (index < 0 || started.has(event.callId)) return `is for call '${event.callId}', which is not waiting to run`;
  const name = batch?.calls[index]?.name;
  return name === event.name ? null : `names the tool '${event.name}', but call '${event.callId}' is to '${name}'`;
}

/** Why a logged outcome differs from the one the events lead to (values compared, not key order), or null. */
function outcomeProblem(logged: RunOutcome, snapshot: AgentSnapshot, schemaVersion: number): string | null {
  const expected = outcomeOf(snapshot.output as AgentResult, schemaVersion);
  const fields = new Set([...Object.keys(logged), ...Object.keys(expected)]) as Set<keyof RunOutcome>;
  for (const field of fields) {
    if (logged[field] !== expected[field]) {
      return `records ${JSON.stringify(logged)}, but the events lead to ${JSON.stringify(expected)}`;
    }
  }
  return null;
}

/** The outcome `run.finished` records for a turn's result. */
export function outcomeOf(result: AgentResult, schemaVersion = EVENT_LOG_SCHEMA_VERSION): RunOutcome {
  const { status, answer, steps, tokens, tokensOverBudget } = result;
  const outcome = { status: status as RunOutcome["status"], answer, steps, tokens };
  const kept = logFlags(schemaVersion).tokensOverBudget && tokensOverBudget !== undefined;
  return kept ? { ...outcome, tokensOverBudget } : outcome;
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
