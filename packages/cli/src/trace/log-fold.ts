import { type Chart, type ChartNode, chartOf, edgeIdOf, leafIdOf, lineageOf } from "../chart/statechart.js";
import {
  type AgentResult,
  type FoldMicrostep,
  foldOf,
  type Message,
  machine,
  type RunFold,
  type RunPosition,
  type StoredEvent,
  type ToolCall,
} from "../core-api.js";

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

const CHART = chartOf(machine);
const NONE: readonly ToolCall[] = [];

/**
 * Folds a run's log through the machine, one event at a time, with core's `RunFold` (its checks
 * and wording): no model is called and no tool runs. Every step also says which transitions the
 * event took (the fold's own microsteps, as core reports them), which states it entered and which
 * messages it added, all read from the fold's position and microsteps, never from the machine's
 * context. Folds share nothing: any number may be folded at once. A conversation's next turn
 * (`user.messaged` after `run.finished`) starts the machine again from the finished turn. An event
 * that does not fit the run at its position throws `EventLogError` naming the run and the
 * position. Used for a whole log (`show`, `replay`, `graph`) and event by event for a live run.
 */
export class LogFold {
  readonly chart: Chart = CHART;
  readonly runId: string;
  readonly #fold: RunFold;
  #active = new Set<string>();
  #shown = 0;

  constructor(runId = "") {
    this.runId = runId;
    this.#fold = foldOf({ runId, microsteps: true });
  }

  /** Where the run stands after the events so far (core's position query); throws before `run.started`. */
  get position(): RunPosition {
    return this.#fold.position;
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
    const position = this.#fold.position;
    const messages = position.messages.slice(this.#shown);
    this.#shown = position.messages.length;
    const { steps, tokens, final } = position;
    // Most events leave no call waiting: they share one empty list.
    const waitingFor = position.waiting.length === 0 ? NONE : position.waiting;
    return { event, moves, messages, state: this.state, steps, tokens, turn: this.turn, waitingFor, final };
  }

  #movesOf(event: StoredEvent): Move[] {
    const fresh = this.#fold.length === 0;
    const turn = this.turn;
    const before = this.state;
    this.#fold.apply(event);
    const steps = this.#fold.microsteps;
    // A turn's machine starts in its initial state, then takes its eventless decisions.
    if (fresh || this.turn !== turn) return this.#walk(this.#initial(), steps.filter(isStart), true);
    // Events the machine does not take (`tool.started`, `run.finished`) make no microstep.
    if (event.type === "tool.started" || event.type === "run.finished") return [];
    return this.#walk(before, steps, false);
  }

  /** The moves of `steps` from the state `from` (a turn's start first enters its initial state afresh). */
  #walk(from: string, steps: readonly FoldMicrostep[], fresh: boolean): Move[] {
    const moves = fresh ? [this.#enter(from, [], true)] : [];
    for (const step of steps) {
      const after = leafIdOf(this.chart, step.value);
      moves.push(this.#enter(after, step.transitions.map(edgeIdOf), false));
    }
    return moves;
  }

  /** The machine's initial state, as a chart node id. */
  #initial(): string {
    let id = this.chart.id;
    for (let node = this.#node(id); node?.initial != null; node = this.#node(id)) id = node.initial;
    return id;
  }

  #node(id: string): ChartNode | undefined {
    return this.chart.nodes.find((node) => node.id === id);
  }

  /** The move into the state `state`; a turn's first move enters its whole lineage again. */
  #enter(state: string, edges: readonly string[], fresh: boolean): Move {
    const lineage = lineageOf(this.chart, state);
    const targets = new Set(edges.map((id) => this.chart.edges.find((edge) => edge.id === id)?.target));
    const entered = lineage.filter((id) => fresh || !this.#active.has(id) || targets.has(id));
    this.#active = new Set(lineage);
    return { edges, state, entered };
  }
}

/** Whether a microstep belongs to a turn's start (its eventless decisions), not to stopping the turn before. */
function isStart(step: FoldMicrostep): boolean {
  return step.event === "xstate.init";
}
