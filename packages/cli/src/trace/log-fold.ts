import {
  type Actor,
  type AnyTransitionDefinition,
  createActor,
  getInitialMicrosteps,
  type InspectionEvent,
} from "xstate";
import { type Chart, chartOf, leafIdOf, lineageOf } from "../chart/statechart.js";
import {
  type AgentEvent,
  type AgentMachineInput,
  type AgentResult,
  type AgentSnapshot,
  EVENT_LOG_SCHEMA_VERSION,
  EventLogError,
  historyCallIds,
  logFlags,
  type Message,
  machine,
  messagesSince,
  nextTurnInput,
  resultOf,
  type StartEvent,
  type StoredEvent,
  startInput,
  type ToolCall,
  tallyOf,
  waitingForDecision,
  waitingToRun,
} from "../core-api.js";
import { outcomeProblem, startProblem } from "./fold-checks.js";
import { type GuardRecord, takenEdges, traceGuards } from "./taken-edges.js";

/** One microstep of the machine: the transitions it took, the state it is in after them, the states it entered. */
export interface Move {
  readonly edges: readonly string[];
  /** The deepest active state after the move (a chart node id). */
  readonly state: string;
  readonly entered: readonly string[];
}

/** What one logged event did to the machine. */
export interface FoldStep {
  readonly event: StoredEvent;
  /** Empty for events the machine does not take (`tool.started`, `run.finished`). */
  readonly moves: readonly Move[];
  /** The messages this event appended to the list. */
  readonly messages: readonly Message[];
  /** The deepest active state after the event. */
  readonly state: string;
  /** Model calls and tokens over the whole run, after the event. */
  readonly steps: number;
  readonly tokens: number;
  /** The turn of the conversation the event belongs to, from 1 (`user.messaged` starts the next). */
  readonly turn: number;
  /** The calls the machine waits on a decision for after the event. */
  readonly waitingFor: readonly ToolCall[];
  /** Whether the machine is in a final state after the event. */
  readonly final: boolean;
}

let guardRecord: GuardRecord = new WeakMap();
const traced = traceGuards(machine, () => guardRecord);
const CHART = chartOf(traced);
const NONE: readonly ToolCall[] = [];

/**
 * Folds a run's log through the machine, one event at a time, as core's replay does: no
 * model is called and no tool runs. Every step says which transitions the event took (named
 * from XState's inspection of each microstep and the results the named guards gave), which
 * states it entered and which messages it added. A conversation's next turn (`user.messaged`
 * after `run.finished`) starts the machine again from the finished turn.
 * An event that does not fit the run at its position throws `EventLogError` naming the run and
 * the position, where core's replay refuses it. Used for a whole log (`show`, `replay`, `graph`)
 * and event by event for a live run's progress.
 */
export class LogFold {
  readonly chart: Chart = CHART;
  readonly runId: string;
  #start: StartEvent | null = null;
  /** The current turn's machine, driven by nothing: the events are sent to it, as core's replay does. */
  #actor: Actor<typeof traced> | null = null;
  /** The snapshots of the microsteps of the event being sent, as XState's inspection reports them. */
  #microsteps: AgentSnapshot[] | null = null;
  #snapshot: AgentSnapshot | null = null;
  #active = new Set<string>();
  #position = 0;
  #shown = 0;
  #turn = 1;
  /** Whether the current turn's `run.finished` is logged. */
  #finished = false;
  /** Call ids used so far (schema 2 refuses a reply that reuses one). */
  #ids = new Set<string>();
  /** Calls whose `tool.started` came and whose `tool.finished` has not, by id, with their tool's name. */
  readonly #running = new Map<string, string>();

  constructor(runId = "") {
    this.runId = runId;
  }

  /** The machine's snapshot after the events so far; throws before `run.started`. */
  get snapshot(): AgentSnapshot {
    if (this.#snapshot === null) throw new Error("LogFold: no run.started folded yet");
    return this.#snapshot;
  }

  /** The deepest active state. */
  get state(): string {
    return [...this.#active].at(-1) ?? this.chart.id;
  }

  /** The last turn's result once the machine reached a final state, else `null`. */
  get result(): AgentResult | null {
    return this.#snapshot === null ? null : resultOf(this.#snapshot);
  }

  /** Calls running now (started, not finished), by id, with their tool's name. */
  get running(): ReadonlyMap<string, string> {
    return this.#running;
  }

  /** The turn of the conversation the fold is in, from 1. */
  get turn(): number {
    return this.#turn;
  }

  /** Events folded so far. */
  get length(): number {
    return this.#position;
  }

  /** Folds the next event; throws `EventLogError` when it does not fit. */
  apply(event: StoredEvent): FoldStep {
    const position = this.#position;
    const moves = this.#movesOf(event, position);
    this.#position++;
    const snapshot = this.snapshot;
    const { messages, length } = messagesSince(snapshot, this.#shown);
    this.#shown = length;
    const { steps, tokens } = tallyOf(snapshot);
    const final = snapshot.status !== "active";
    const waiting = waitingForDecision(snapshot);
    // Most events leave no call waiting: they share one empty list.
    const waitingFor = waiting.length === 0 ? NONE : waiting;
    return { event, moves, messages, state: this.state, steps, tokens, turn: this.#turn, waitingFor, final };
  }

  #movesOf(event: StoredEvent, position: number): Move[] {
    const fail = (problem: string) => this.#misfit(event, position, problem);
    if (position === 0) {
      if (event.type !== "run.started") throw fail("must be 'run.started'");
      this.#start = event;
      this.#ids = historyCallIds(event.settings);
      return this.#enterTurn(startInput(event));
    }
    if (this.snapshot.status !== "active") return this.#afterEnd(event, fail);
    switch (event.type) {
      case "run.started":
        throw fail("repeats the start");
      case "run.finished":
      case "user.messaged":
        throw fail("comes before the run reached its end");
      case "tool.started": {
        const problem = startProblem(waitingToRun(this.snapshot), event, this.#running);
        if (problem !== null) throw fail(problem);
        this.#running.set(event.callId, event.name);
        return [];
      }
      case "tool.finished":
        if (!this.#running.delete(event.callId)) {
          throw fail(`has no tool.started for call '${event.callId}' before it`);
        }
        break;
      case "model.replied":
        this.#claimIds(event.reply.toolCalls, fail);
    }
    return this.#step(event, fail);
  }

  /** After a turn reached its end: its `run.finished`, then only the user's next message. */
  #afterEnd(event: StoredEvent, fail: (problem: string) => EventLogError): Move[] {
    if (event.type === "run.finished" && !this.#finished) {
      const problem = outcomeProblem(
        event.outcome,
        this.result as AgentResult,
        this.#start?.schemaVersion ?? EVENT_LOG_SCHEMA_VERSION,
      );
      if (problem !== null) throw fail(problem);
      this.#finished = true;
      return [];
    }
    if (event.type !== "user.messaged" || !this.#finished) {
      throw fail(`comes after ${this.#finished ? "run.finished" : "the run reached its end"}`);
    }
    const input = nextTurnInput(startInput(this.#start as StartEvent), this.snapshot, event.content);
    this.#turn++;
    this.#finished = false;
    return this.#enterTurn(input);
  }

  #claimIds(calls: readonly ToolCall[], fail: (problem: string) => EventLogError): void {
    if (!logFlags(this.#start?.schemaVersion ?? EVENT_LOG_SCHEMA_VERSION).uniqueCallIds) return;
    for (const call of calls) {
      if (this.#ids.has(call.id)) throw fail(`uses the call id '${call.id}' a second time in the run`);
      this.#ids.add(call.id);
    }
  }

  /**
   * Starts a turn's machine: its moves into the initial state and through its eventless decisions
   * come from XState's pure `getInitialMicrosteps` (once a turn); the events that follow are sent
   * to an actor of it (the pure stepping functions build a throwaway actor for every event).
   */
  #enterTurn(input: AgentMachineInput): Move[] {
    guardRecord = new WeakMap();
    const moves: Move[] = [];
    let before: AgentSnapshot | null = null;
    for (const [after] of getInitialMicrosteps(traced, input) as [AgentSnapshot, unknown][]) {
      const edges = before === null ? [] : this.#edges(before, after, "");
      moves.push(this.#enter(after, edges, before === null));
      before = after;
    }
    this.#actor?.stop();
    const inspect = (inspection: InspectionEvent) => {
      if (inspection.type === "@xstate.microstep") this.#microsteps?.push(inspection.snapshot as AgentSnapshot);
    };
    this.#actor = createActor(traced, { input, inspect });
    // An event that breaks an action leaves the actor in error, reported here rather than thrown later.
    this.#actor.subscribe({ error: () => {} });
    this.#snapshot = this.#actor.start().getSnapshot();
    return moves;
  }

  #step(event: StoredEvent, fail: (problem: string) => EventLogError): Move[] {
    guardRecord = new WeakMap();
    const { seq: _seq, at: _at, hash: _hash, ...machineEvent } = event;
    const actor = this.#actor as Actor<typeof traced>;
    const before = actor.getSnapshot();
    const steps: AgentSnapshot[] = [];
    this.#microsteps = steps;
    try {
      actor.send(machineEvent as AgentEvent);
    } finally {
      this.#microsteps = null;
    }
    const last = actor.getSnapshot();
    // XState keeps the very same snapshot for an event no transition takes.
    if (last === before || last.status === "error" || steps.length === 0) {
      throw fail(`does not fit the state ${JSON.stringify(before.value)}`);
    }
    const moves: Move[] = [];
    let from = before;
    steps.forEach((after, index) => {
      moves.push(this.#enter(after, this.#edges(from, after, index === 0 ? machineEvent.type : ""), false));
      from = after;
    });
    this.#snapshot = last;
    return moves;
  }

  #edges(before: AgentSnapshot, after: AgentSnapshot, eventType: string): string[] {
    const leafBefore = leafIdOf(this.chart, before.value);
    const leafAfter = leafIdOf(this.chart, after.value);
    const lineage = lineageOf(this.chart, leafAfter);
    const fits = (transition: AnyTransitionDefinition) => {
      const target = transition.target?.[0]?.id;
      return target === undefined ? leafAfter === leafBefore : lineage.includes(target);
    };
    return takenEdges(before, eventType, guardRecord.get(before.context), fits);
  }

  /** The move into `snapshot`'s state; a turn's first move enters its whole lineage again. */
  #enter(snapshot: AgentSnapshot, edges: readonly string[], fresh: boolean): Move {
    const state = leafIdOf(this.chart, snapshot.value);
    const lineage = lineageOf(this.chart, state);
    const targets = new Set(edges.map((id) => this.chart.edges.find((edge) => edge.id === id)?.target));
    const entered = lineage.filter((id) => fresh || !this.#active.has(id) || targets.has(id));
    this.#active = new Set(lineage);
    return { edges, state, entered };
  }

  #misfit(event: StoredEvent, position: number, problem: string): EventLogError {
    const run = this.runId === "" ? "" : `run '${this.runId}': `;
    return new EventLogError(`${run}event ${position} (${event.type}) ${problem}`, { runId: this.runId, position });
  }
}
