import { type Actor, type AnyTransitionDefinition, createActor, type InspectionEvent, type StateValue } from "xstate";
import type { AgentResult, RunOutcome, RunSettings, StoredEvent } from "../data/index.js";
import { EVENT_LOG_SCHEMA_VERSION, logFlags, messagesOf, usedCallIds } from "../data/index.js";
import type { AgentMachineInput } from "../decide/index.js";
import { type AgentSnapshot, agentMachine, anchoredSnapshot, isAskingCall } from "../decide/index.js";
import { EventLogError } from "./event-log-error.js";
import { positionOf, type RunPosition } from "./run-position.js";

/** How to fold: `runId` names the run in errors; `settings` replace the logged ones (forks change limits). */
export interface RunFoldOptions {
  readonly runId?: string;
  readonly settings?: RunSettings;
  /** A machine made from `agentMachine`'s config (e.g. with its guards instrumented); `agentMachine` when absent. */
  readonly machine?: typeof agentMachine;
  /** Hears XState's inspection of the fold's actor. */
  readonly inspect?: (event: InspectionEvent) => void;
  /** Keep the microsteps of each event folded (`microsteps`), for a trace of the transitions it took. */
  readonly microsteps?: boolean;
}

/** One microstep of the machine: the event it took (`xstate.init` for a turn's start, eventless ones carry the event before), the transitions it took, and the state it ended in. */
export interface FoldMicrostep {
  readonly event: string;
  readonly transitions: readonly AnyTransitionDefinition[];
  readonly value: StateValue;
}

/**
 * A run's log folded through the machine one stored event at a time, calling no model and running
 * no tool: after each event it tells where the run stands (`snapshot`, `position`, `turn`, the
 * calls started and not finished). A conversation's next turn (`user.messaged` after
 * `run.finished`) starts the machine again from the turn before. An event that does not fit the
 * run where it stands throws `EventLogError` naming the run and the position: a misplaced start or
 * end, a `tool.started` for a call that is not running or that names another tool, a
 * `tool.finished` without its `tool.started`, a call id used twice, an event no transition takes,
 * and an end whose outcome differs from the one the events lead to.
 */
export class RunFold {
  readonly runId: string;
  readonly #options: RunFoldOptions;
  readonly #events: StoredEvent[] = [];
  readonly #started = new Set<string>();
  #input: AgentMachineInput | null = null;
  #actor: Actor<typeof agentMachine> | null = null;
  #snapshot: AgentSnapshot | null = null;
  #ids = new Set<string>();
  #finished = false;
  #turn = 1;
  /** The microsteps of the last event folded, when asked for (`options.microsteps`). */
  #microsteps: FoldMicrostep[] = [];

  constructor(options: RunFoldOptions = {}) {
    this.runId = options.runId ?? "";
    this.#options = options;
  }

  /** Events folded so far. */
  get length(): number {
    return this.#events.length;
  }

  /** The machine's snapshot after the events so far; throws before `run.started`. */
  get snapshot(): AgentSnapshot {
    if (this.#snapshot === null) throw new Error("RunFold: no run.started folded yet");
    return this.#snapshot;
  }

  /** Where the run stands after the events so far (see `positionOf`). */
  get position(): RunPosition {
    return positionOf(this.snapshot);
  }

  /** The log's schema version (from its `run.started`). */
  get schemaVersion(): number {
    return this.#input?.schemaVersion ?? EVENT_LOG_SCHEMA_VERSION;
  }

  /** The turn of the conversation, from 1 (each `user.messaged` starts the next). */
  get turn(): number {
    return this.#turn;
  }

  /** Whether the current turn's `run.finished` is folded. */
  get finished(): boolean {
    return this.#finished;
  }

  /** The last turn's result once the machine reached a final state, else `null`. */
  get result(): AgentResult | null {
    const snapshot = this.#snapshot;
    return snapshot?.status === "done" ? (snapshot.output ?? null) : null;
  }

  /**
   * The microsteps the last event folded made, in order, as the fold's own actor took them: each
   * with the transitions XState selected (its guards evaluated on the fold's own context). Empty
   * unless the fold was made with `microsteps: true`, and for an event the machine does not take
   * (`tool.started`, `run.finished`); a turn's start lists its `xstate.init` microsteps.
   */
  get microsteps(): readonly FoldMicrostep[] {
    return this.#microsteps;
  }

  /** Ids of the calls whose `tool.started` is folded without their `tool.finished`. */
  get interrupted(): ReadonlySet<string> {
    return this.#started;
  }

  /**
   * Whether `event` would end the fold rather than fit: it comes after the run reached its end
   * (other than its `run.finished`, then a `user.messaged`), or, with `partial`, it ends a turn
   * that is still going (a fork's larger limits may go on where the original stopped).
   */
  endsBefore(event: StoredEvent, partial = false): boolean {
    const snapshot = this.#snapshot;
    if (snapshot === null) return false;
    if (snapshot.status !== "active") {
      return !(event.type === "run.finished" && !this.#finished) && !(event.type === "user.messaged" && this.#finished);
    }
    return partial && (event.type === "run.finished" || event.type === "user.messaged");
  }

  /** Folds the next event; throws `EventLogError` when it does not fit, and folds nothing then. */
  apply(event: StoredEvent): void {
    if (this.#options.microsteps === true) this.#microsteps = [];
    const snapshot = this.#snapshot;
    if (snapshot === null) this.#start(event);
    else if (snapshot.status !== "active") this.#afterEnd(event, snapshot);
    else this.#step(event, snapshot);
    this.#events.push(event);
  }

  /** Stops the fold's actor. */
  stop(): void {
    this.#actor?.stop();
  }

  #start(event: StoredEvent): void {
    if (event.type === "run.anchored") {
      this.#anchor(event);
      return;
    }
    if (event.type !== "run.started") throw this.#misfit(event, "must be 'run.started'");
    this.#input = { settings: this.#options.settings ?? event.settings, schemaVersion: event.schemaVersion };
    this.#enter(this.#input);
    this.#ids = usedCallIds(messagesOf(this.snapshot.context.transcript));
  }

  /** A log `retain` pruned starts where the events it dropped ended: a finished turn, as their anchor keeps it. */
  #anchor(event: Extract<StoredEvent, { type: "run.anchored" }>): void {
    const { settings: logged, schemaVersion } = event.started;
    const settings = this.#options.settings ?? logged;
    this.#input = { settings, schemaVersion };
    this.#snapshot = anchoredSnapshot(settings, schemaVersion, event.state);
    this.#ids = usedCallIds(messagesOf(this.#snapshot.context.transcript));
    this.#finished = true;
    this.#turn = event.turns;
  }

  /** After a turn reached its end: its `run.finished`, then only the user's next message. */
  #afterEnd(event: StoredEvent, snapshot: AgentSnapshot): void {
    if (event.type === "run.finished" && !this.#finished) {
      const problem = outcomeProblem(event.outcome, this.result as AgentResult, this.schemaVersion);
      if (problem !== null) throw this.#misfit(event, problem);
      this.#finished = true;
      return;
    }
    if (event.type !== "user.messaged" || !this.#finished) {
      throw this.#misfit(event, `comes after ${this.#finished ? "run.finished" : "the run reached its end"}`);
    }
    const input = this.#input as AgentMachineInput;
    const turn = event.turn === undefined ? {} : { turn: event.turn };
    this.#enter({ ...input, continues: { context: snapshot.context, message: event.content, ...turn } });
    this.#finished = false;
    this.#turn++;
  }

  #step(event: StoredEvent, before: AgentSnapshot): void {
    switch (event.type) {
      case "run.started":
      case "run.anchored":
        throw this.#misfit(event, "repeats the start");
      case "run.finished":
      case "user.messaged":
        throw this.#misfit(event, "comes before the run reached its end");
      case "tool.noted":
        // A note is the tool's, kept for its next attempt: the machine never takes it.
        if (!this.#started.has(event.callId)) {
          throw this.#misfit(event, `has no tool.started for call '${event.callId}' before it`);
        }
        return;
      case "tool.started": {
        const problem = startProblem(before, event, this.#started);
        if (problem !== null) throw this.#misfit(event, problem);
        this.#started.add(event.callId);
        return;
      }
      case "memory.written":
        // A tool's write, logged before its result: it changes nothing the machine decides by.
        if (!this.#started.has(event.callId)) {
          throw this.#misfit(event, `has no tool.started for call '${event.callId}' before it`);
        }
        return;
      case "tool.finished":
      case "tool.asked":
      case "tool.paused":
      case "tool.resumed":
        if (!this.#started.has(event.callId)) {
          throw this.#misfit(event, `has no tool.started for call '${event.callId}' before it`);
        }
        break;
      case "model.replied":
        if (logFlags(this.schemaVersion).uniqueCallIds) this.#claimIds(event);
    }
    const actor = this.#actor as Actor<typeof agentMachine>;
    // The stamps (`seq`, `at`, `hash`) ride along: no guard or assign reads them.
    actor.send(event);
    const after = actor.getSnapshot();
    // XState keeps the very same snapshot for an event no transition takes.
    if (after === before || after.status === "error") {
      throw this.#misfit(event, `does not fit the state ${JSON.stringify(before.value)}`);
    }
    // A call that asked a question ended without its observation: it starts again once answered.
    if (event.type === "tool.finished" || event.type === "tool.asked") this.#started.delete(event.callId);
    this.#snapshot = after;
  }

  #claimIds(event: Extract<StoredEvent, { type: "model.replied" }>): void {
    const { toolCalls } = event.reply;
    for (const [index, call] of toolCalls.entries()) {
      const again = this.#ids.has(call.id) || toolCalls.findIndex((other) => other.id === call.id) < index;
      if (again) throw this.#misfit(event, `uses the call id '${call.id}' a second time in the run`);
    }
    for (const call of toolCalls) this.#ids.add(call.id);
  }

  #enter(input: AgentMachineInput): void {
    this.#actor?.stop();
    const { machine = agentMachine } = this.#options;
    const inspect = this.#inspector();
    this.#actor = createActor(machine, { input, ...(inspect === undefined ? {} : { inspect }) });
    // An event that breaks an action leaves the actor in error, reported here rather than thrown later.
    this.#actor.subscribe({ error: () => {} });
    this.#snapshot = this.#actor.start().getSnapshot();
  }

  /** What hears the actor's inspection: the caller's `inspect`, and this fold's own list of microsteps when asked for. */
  #inspector(): ((event: InspectionEvent) => void) | undefined {
    const { inspect, microsteps } = this.#options;
    if (microsteps !== true) return inspect;
    return (inspection) => {
      if (inspection.type === "@xstate.microstep") {
        const { value } = inspection.snapshot as AgentSnapshot;
        // XState reports the transitions each microstep selected with it (the public type's `_transitions`).
        this.#microsteps.push({ event: inspection.event.type, transitions: inspection._transitions, value });
      }
      inspect?.(inspection);
    };
  }

  /** The error for `event`, which does not fit at the fold's next position. */
  #misfit(event: StoredEvent, problem: string): EventLogError {
    const position = this.#events.length;
    const run = this.runId === "" ? "" : `run '${this.runId}': `;
    return new EventLogError(`${run}event ${position} (${event.type}) ${problem}`, {
      runId: this.runId,
      position,
      intact: this.#events.slice(),
    });
  }
}

/** Why a `tool.started` does not fit: its call is not running, was started already, or is another tool's. */
function startProblem(
  snapshot: AgentSnapshot,
  event: Extract<StoredEvent, { type: "tool.started" }>,
  started: ReadonlySet<string>,
): string | null {
  const { batch } = snapshot.context;
  const index = batch?.find(event.callId, "running") ?? -1;
  if (index < 0 || started.has(event.callId) || isAskingCall(snapshot.context, event.callId)) {
    return `is for call '${event.callId}', which is not waiting to run`;
  }
  const name = batch?.calls[index]?.name;
  return name === event.name ? null : `names the tool '${event.name}', but call '${event.callId}' is to '${name}'`;
}

/** Why a logged outcome differs from the one the events lead to (values compared, not key order), or null. */
function outcomeProblem(logged: RunOutcome, result: AgentResult, schemaVersion: number): string | null {
  const expected = outcomeOf(result, schemaVersion);
  const fields = new Set([...Object.keys(logged), ...Object.keys(expected)]) as Set<keyof RunOutcome>;
  for (const field of fields) {
    if (field === "answer" && answerWithheldSince(logged, expected)) continue;
    if (logged[field] !== expected[field]) {
      return `records ${JSON.stringify(logged)}, but the events lead to ${JSON.stringify(expected)}`;
    }
  }
  return null;
}

/**
 * Whether a logged answer is one this code withholds: runs that ended `invalid_output` with output
 * guardrails logged their unchecked last text, which a replay now withholds as a live run does.
 */
function answerWithheldSince(logged: RunOutcome, expected: RunOutcome): boolean {
  return expected.status === "invalid_output" && logged.status === "invalid_output" && expected.answer === null;
}

/** The outcome `run.finished` records for a turn's result. */
export function outcomeOf(result: AgentResult, schemaVersion = EVENT_LOG_SCHEMA_VERSION): RunOutcome {
  const { status, answer, steps, tokens, tokensOverBudget, cost, costOverBudget } = result;
  const outcome = { status: status as RunOutcome["status"], answer, steps, tokens };
  const over = logFlags(schemaVersion).tokensOverBudget && tokensOverBudget !== undefined ? { tokensOverBudget } : {};
  const costOver = costOverBudget === undefined ? {} : { costOverBudget };
  return { ...outcome, ...over, ...(cost === undefined ? {} : { cost }), ...costOver };
}
