import type { Chart } from "../chart/statechart.js";
import type { AgentResult, PendingQuestion, RunSettings, StoredEvent, ToolCall } from "../core-api.js";
import { type FoldStep, LogFold } from "./log-fold.js";
import { type Note, notesOf } from "./notes.js";

export type { FoldStep as TraceEntry, Move } from "./log-fold.js";

/** A run rebuilt from its log: what every event did, which states were visited and which transitions taken. */
export interface RunTrace {
  readonly chart: Chart;
  readonly settings: RunSettings;
  /** One per logged event, from `run.started` on. */
  readonly entries: readonly FoldStep[];
  /** Times each state was entered, by chart node id. */
  readonly visits: ReadonlyMap<string, number>;
  /** Times each transition was taken, by chart edge id. */
  readonly taken: ReadonlyMap<string, number>;
  /** The deepest state the run is in at the end of the log. */
  readonly state: string;
  /** Steps and tokens at the end of the log. */
  readonly steps: number;
  readonly tokens: number;
  /** The replayed `AgentResult`, or `null` for a run that has not finished (interrupted, or waiting for a decision). */
  readonly result: AgentResult | null;
  /** The calls the run waits on a decision for, when the log ends. */
  readonly waiting: readonly ToolCall[];
  /** The questions the run waits on an answer for, when the log ends. */
  readonly questions: readonly PendingQuestion[];
  /** Turns of the conversation: 1, plus one per `user.messaged`. */
  readonly turns: number;
  /** Turns, pauses, gaps and interruptions, by the index of the entry they come before. */
  readonly notes: ReadonlyMap<number, readonly Note[]>;
  /** The last event folded (kept also when the entries are not). */
  readonly last: StoredEvent | undefined;
}

/**
 * Builds a `RunTrace` while a log is folded (`LogFold`), event by event: for a whole log, or for a
 * live run as its events are logged, so that nothing is folded twice. `keep: false` keeps the
 * counts and the state but not the entries (a long live run whose timeline is not shown).
 */
export class RunTracer {
  readonly fold: LogFold;
  readonly #keep: boolean;
  readonly #entries: FoldStep[] = [];
  readonly #visits = new Map<string, number>();
  readonly #taken = new Map<string, number>();
  #settings: RunSettings | null = null;
  #last: FoldStep | null = null;

  constructor(runId?: string, { keep = true } = {}) {
    this.fold = new LogFold(runId);
    this.#keep = keep;
  }

  /** The run's settings, once `run.started` was folded. */
  get settings(): RunSettings | null {
    return this.#settings;
  }

  /** Folds the next event; throws `EventLogError` when it does not fit. */
  add(event: StoredEvent): FoldStep {
    const step = this.fold.apply(event);
    if (event.type === "run.started") this.#settings = event.settings;
    // A pruned log starts with its anchor, which keeps the run's start.
    if (event.type === "run.anchored") this.#settings = event.started.settings;
    for (const move of step.moves) {
      for (const id of move.entered) this.#visits.set(id, (this.#visits.get(id) ?? 0) + 1);
      for (const edge of move.edges) this.#taken.set(edge, (this.#taken.get(edge) ?? 0) + 1);
    }
    if (this.#keep) this.#entries.push(step);
    this.#last = step;
    return step;
  }

  /** The trace so far; throws before `run.started`. */
  trace(): RunTrace {
    if (this.#settings === null) throw new Error("RunTracer: no run.started folded yet");
    const { fold } = this;
    const result = fold.result;
    const waiting = result === null ? fold.position.waiting : [];
    const questions = result === null ? fold.position.questions : [];
    return {
      chart: fold.chart,
      settings: this.#settings,
      entries: this.#entries,
      visits: this.#visits,
      taken: this.#taken,
      state: fold.state,
      steps: this.#last?.steps ?? 0,
      tokens: this.#last?.tokens ?? 0,
      result,
      waiting,
      questions,
      turns: fold.turn,
      notes: notesOf(this.#entries, waiting),
      last: this.#last?.event,
    };
  }
}

/**
 * Rebuilds a run from its log in one fold through the machine: no model is called and no tool
 * runs. Throws `EventLogError` (naming the run and the position) for a log that does not fit.
 * `keep: false` keeps the counts, the path and the end, not the entries (`replay`, `graph`).
 */
export function traceRun(events: readonly StoredEvent[], runId?: string, { keep = true } = {}): RunTrace {
  const tracer = new RunTracer(runId, { keep });
  for (const event of events) tracer.add(event);
  return tracer.trace();
}
