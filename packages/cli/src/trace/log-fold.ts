import { type AnyTransitionDefinition, getInitialMicrosteps, getMicrosteps } from "xstate";
import { type Chart, chartOf, leafIdOf, lineageOf } from "../chart/statechart.js";
import {
  type AgentResult,
  type AgentSnapshot,
  EventLogError,
  type Message,
  machine,
  messagesSince,
  resultOf,
  type StoredEvent,
  type ToolCall,
  tallyOf,
  waitingForDecision,
  waitingToRun,
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
  readonly steps: number;
  readonly tokens: number;
  /** The calls the machine waits on a decision for after the event. */
  readonly waitingFor: readonly ToolCall[];
  /** Whether the machine is in a final state after the event. */
  readonly final: boolean;
}

let guardRecord: GuardRecord = new WeakMap();
const traced = traceGuards(machine, () => guardRecord);
const CHART = chartOf(traced);

/**
 * Folds a run's log through the machine, one event at a time, with XState's pure microsteps: no
 * model is called and no tool runs. Every step says which transitions the event took, which
 * states it entered and which messages it added. An event that does not fit the run at its
 * position throws `EventLogError` naming the run and the position, as core's replay does.
 * Used for a whole log (`show`, `replay`, `graph`) and event by event for a live run's progress.
 */
export class LogFold {
  readonly chart: Chart = CHART;
  readonly runId: string;
  #snapshot: AgentSnapshot | null = null;
  #active = new Set<string>();
  #position = 0;
  #shown = 0;
  #finished = false;
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

  /** The run's result once the machine reached a final state, else `null`. */
  get result(): AgentResult | null {
    return this.#snapshot === null ? null : resultOf(this.#snapshot);
  }

  /** Calls running now (started, not finished), by id, with their tool's name. */
  get running(): ReadonlyMap<string, string> {
    return this.#running;
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
    return {
      event,
      moves,
      messages,
      state: this.state,
      steps,
      tokens,
      waitingFor: waitingForDecision(snapshot),
      final,
    };
  }

  #movesOf(event: StoredEvent, position: number): Move[] {
    const fail = (problem: string) => this.#misfit(event, position, problem);
    if (position === 0) {
      if (event.type !== "run.started") throw fail("must be 'run.started'");
      return this.#start(event.settings);
    }
    if (this.#finished) throw fail("comes after run.finished");
    switch (event.type) {
      case "run.started":
        throw fail("repeats the start");
      case "run.finished":
        this.#checkOutcome(event, fail);
        this.#finished = true;
        return [];
      case "tool.started":
        this.#checkStarted(event, fail);
        return [];
      case "tool.finished":
        if (!this.#running.has(event.callId)) throw fail(`has no tool.started for call '${event.callId}' before it`);
        this.#running.delete(event.callId);
    }
    if (this.snapshot.status !== "active") throw fail("comes after the run reached its end");
    return this.#step(event, fail);
  }

  #start(settings: Extract<StoredEvent, { type: "run.started" }>["settings"]): Move[] {
    guardRecord = new WeakMap();
    const steps = getInitialMicrosteps(traced, settings) as [AgentSnapshot, unknown][];
    const moves: Move[] = [];
    let before: AgentSnapshot | null = null;
    for (const [after] of steps) {
      const edges = before === null ? [] : this.#edges(before, after, "");
      moves.push(this.#enter(after, edges));
      before = after;
    }
    this.#snapshot = before;
    return moves;
  }

  #step(event: StoredEvent, fail: (problem: string) => EventLogError): Move[] {
    guardRecord = new WeakMap();
    const { seq: _seq, at: _at, ...machineEvent } = event;
    const before = this.snapshot;
    const steps = getMicrosteps(traced, before, machineEvent as Parameters<typeof getMicrosteps>[2]);
    const last = steps.at(-1)?.[0] as AgentSnapshot | undefined;
    if (last === undefined || last === before) throw fail(`does not fit the state ${JSON.stringify(before.value)}`);
    const moves: Move[] = [];
    let from = before;
    steps.forEach(([snapshot], index) => {
      const after = snapshot as AgentSnapshot;
      moves.push(this.#enter(after, this.#edges(from, after, index === 0 ? machineEvent.type : "")));
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

  #enter(snapshot: AgentSnapshot, edges: readonly string[]): Move {
    const state = leafIdOf(this.chart, snapshot.value);
    const lineage = lineageOf(this.chart, state);
    const targets = new Set(edges.map((id) => this.chart.edges.find((edge) => edge.id === id)?.target));
    const entered = lineage.filter((id) => !this.#active.has(id) || targets.has(id));
    this.#active = new Set(lineage);
    return { edges, state, entered };
  }

  #checkStarted(event: Extract<StoredEvent, { type: "tool.started" }>, fail: (problem: string) => EventLogError): void {
    if (this.#running.has(event.callId)) throw fail(`starts call '${event.callId}' a second time`);
    const call = waitingToRun(this.snapshot).find((waiting) => waiting.id === event.callId);
    if (call === undefined) throw fail("is for no call waiting to run");
    if (call.name !== event.name) throw fail(`names tool '${event.name}', but call '${call.id}' is to '${call.name}'`);
    this.#running.set(event.callId, event.name);
  }

  #checkOutcome(event: Extract<StoredEvent, { type: "run.finished" }>, fail: (problem: string) => EventLogError): void {
    const result = this.result;
    if (result === null) throw fail("comes before the run reached its end");
    const { status, answer, steps, tokens } = result;
    const { outcome } = event;
    if (
      outcome.status !== status ||
      outcome.answer !== answer ||
      outcome.steps !== steps ||
      outcome.tokens !== tokens
    ) {
      const replayed = JSON.stringify({ status, answer, steps, tokens });
      throw fail(`records ${JSON.stringify(outcome)}, but the events lead to ${replayed}`);
    }
  }

  #misfit(event: StoredEvent, position: number, problem: string): EventLogError {
    const run = this.runId === "" ? "" : `run '${this.runId}': `;
    return new EventLogError(`${run}event ${position} (${event.type}) ${problem}`, { runId: this.runId, position });
  }
}
