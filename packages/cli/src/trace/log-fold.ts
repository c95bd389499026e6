import { type AnyTransitionDefinition, getInitialMicrosteps, type InspectionEvent } from "xstate";
import { type Chart, chartOf, leafIdOf, lineageOf } from "../chart/statechart.js";
import {
  type AgentMachineInput,
  type AgentResult,
  type AgentSnapshot,
  foldOf,
  type Message,
  machine,
  messagesSince,
  nextTurnInput,
  type RunFold,
  type StartEvent,
  type StoredEvent,
  startInput,
  type ToolCall,
  tallyOf,
  waitingForDecision,
} from "../core-api.js";
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
 * Folds a run's log through the machine, one event at a time, with core's `RunFold` (its checks
 * and wording): no model is called and no tool runs. Every step also says which transitions the
 * event took (named from XState's inspection of each microstep and the results the named guards
 * gave), which states it entered and which messages it added. A conversation's next turn
 * (`user.messaged` after `run.finished`) starts the machine again from the finished turn. An event
 * that does not fit the run at its position throws `EventLogError` naming the run and the
 * position. Used for a whole log (`show`, `replay`, `graph`) and event by event for a live run.
 */
export class LogFold {
  readonly chart: Chart = CHART;
  readonly runId: string;
  readonly #fold: RunFold;
  #start: StartEvent | null = null;
  /** The snapshots of the microsteps of the event being folded, as XState's inspection reports them. */
  #microsteps: AgentSnapshot[] | null = null;
  #active = new Set<string>();
  #shown = 0;

  constructor(runId = "") {
    this.runId = runId;
    const inspect = (inspection: InspectionEvent) => {
      if (inspection.type === "@xstate.microstep") this.#microsteps?.push(inspection.snapshot as AgentSnapshot);
    };
    this.#fold = foldOf({ runId, machine: traced, inspect });
  }

  /** The machine's snapshot after the events so far; throws before `run.started`. */
  get snapshot(): AgentSnapshot {
    return this.#fold.snapshot;
  }

  /** The deepest active state. */
  get state(): string {
    return [...this.#active].at(-1) ?? this.chart.id;
  }

  /** The last turn's result once the machine reached a final state, else `null`. */
  get result(): AgentResult | null {
    return this.#fold.length === 0 ? null : this.#fold.result;
  }

  /** Calls running now (started, not finished), by id, with their tool's name. */
  get running(): ReadonlyMap<string, string> {
    const running = new Map<string, string>();
    if (this.#fold.length === 0) return running;
    for (const call of this.#fold.position.calls)
      if (this.#fold.interrupted.has(call.id)) running.set(call.id, call.name);
    return running;
  }

  /** The turn of the conversation the fold is in, from 1. */
  get turn(): number {
    return this.#fold.turn;
  }

  /** Events folded so far. */
  get length(): number {
    return this.#fold.length;
  }

  /** Folds the next event; throws `EventLogError` when it does not fit. */
  apply(event: StoredEvent): FoldStep {
    const moves = this.#movesOf(event);
    const snapshot = this.snapshot;
    const { messages, length } = messagesSince(snapshot, this.#shown);
    this.#shown = length;
    const { steps, tokens } = tallyOf(snapshot);
    const final = snapshot.status !== "active";
    const waiting = waitingForDecision(snapshot);
    // Most events leave no call waiting: they share one empty list.
    const waitingFor = waiting.length === 0 ? NONE : waiting;
    return { event, moves, messages, state: this.state, steps, tokens, turn: this.turn, waitingFor, final };
  }

  #movesOf(event: StoredEvent): Move[] {
    const before = this.#fold.length === 0 ? null : this.snapshot;
    const turn = this.turn;
    guardRecord = new WeakMap();
    const steps: AgentSnapshot[] = [];
    this.#microsteps = steps;
    try {
      this.#fold.apply(event);
    } finally {
      this.#microsteps = null;
    }
    if (before === null) {
      this.#start = event as StartEvent;
      return this.#enterTurn(startInput(this.#start));
    }
    if (this.turn !== turn && event.type === "user.messaged") {
      return this.#enterTurn(nextTurnInput(startInput(this.#start as StartEvent), before, event.content));
    }
    // Events the machine does not take (`tool.started`, `run.finished`) make no microstep.
    if (event.type === "tool.started" || event.type === "run.finished") return [];
    const moves: Move[] = [];
    let from = before;
    steps.forEach((after, index) => {
      moves.push(this.#enter(after, this.#edges(from, after, index === 0 ? event.type : ""), false));
      from = after;
    });
    return moves;
  }

  /**
   * A turn's moves into its initial state and through its eventless decisions, from XState's pure
   * `getInitialMicrosteps` (the fold's actor starts the turn itself).
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
}
