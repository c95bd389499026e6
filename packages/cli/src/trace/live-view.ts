import { stateName } from "../chart/statechart.js";
import type { AgentStreamEvent, StoredEvent } from "../core-api.js";
import type { AttemptNotice, Progress } from "../output/progress-line.js";
import type { RunTracer } from "./run-trace.js";

/** Where a live view shows the run: its progress, the model's text as it streams, and each failed model attempt and wait. */
export interface LiveSink {
  progress(progress: Progress): void;
  text(piece: string): void;
  attempt(notice: AttemptNotice): void;
}

/**
 * Follows a live run through `runAgent`'s `onLogged` and `onEvent` (or `resumeAgent`'s,
 * `continueAgent`'s): each event the run logs is folded, as stored, into `tracer` (empty for a new
 * run, or holding its log so far), so that the progress shown is the machine's own state, steps
 * and tokens; text deltas go to the sink as they stream. Progress is only a view: an event the
 * fold refuses stops the reports, never the run.
 */
export class LiveView {
  readonly #tracer: RunTracer;
  readonly #sink: LiveSink;
  #broken = false;

  constructor(tracer: RunTracer, sink: LiveSink) {
    this.#tracer = tracer;
    this.#sink = sink;
  }

  /** Tells where the run stands now (once it is seeded), as its first progress. */
  start(): void {
    this.#report();
  }

  /** The `onEvent` callback to give the run: the model's text as it streams, failed attempts, and progress at each step. */
  readonly onEvent = (event: AgentStreamEvent): void => {
    // A child run's events (an agent tool's) are its own: the line follows this run.
    if (event.origin !== undefined) return;
    if (event.type === "text-delta") this.#sink.text(event.text);
    else if (event.type === "logged" && event.event.type === "model.failed") this.#sink.attempt(event.event);
    else if (event.type === "retry-waiting") this.#sink.attempt(event);
    else if (event.type === "step-started" || event.type === "finished") this.#report();
  };

  /** The `onLogged` callback to give the run: each event it logs is folded as stored, then reported. */
  readonly onLogged = (event: StoredEvent): void => {
    if (this.#broken) return;
    try {
      this.#tracer.add(event);
    } catch {
      this.#broken = true;
    }
    this.#report();
  };

  #report(): void {
    const { fold, settings } = this.#tracer;
    if (this.#broken || settings === null) return;
    const { turnSteps, turnTokens } = fold.position;
    const running = new Map<string, number>();
    for (const name of fold.running.values()) running.set(name, (running.get(name) ?? 0) + 1);
    const tools = [...running].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`));
    this.#sink.progress({
      state: stateName(fold.chart, fold.state),
      steps: turnSteps,
      maxSteps: settings.maxSteps,
      tokens: turnTokens,
      tokenBudget: settings.tokenBudget,
      tool: tools.length === 0 ? null : tools.join(", "),
      turn: fold.turn,
    });
  }
}
