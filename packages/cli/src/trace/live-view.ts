import { stateName } from "../chart/statechart.js";
import { type AgentStreamEvent, type RunEvent, tallyOf } from "../core-api.js";
import type { Progress } from "../output/progress-line.js";
import type { RunTracer } from "./run-trace.js";

/** Where a live view shows the run: its progress, and the model's text as it streams. */
export interface LiveSink {
  progress(progress: Progress): void;
  text(piece: string): void;
}

/**
 * Follows a live run through `runAgent`'s `onEvent` (or `resumeAgent`'s, `continueAgent`'s): each
 * event the run tells once it is logged is folded, as the machine event it was logged as, into
 * `tracer` (which holds the run's start, or its log so far), so that the progress shown is the
 * machine's own state, steps and tokens; text deltas go to the sink as they stream. Progress is
 * only a view: an event the fold refuses stops the reports, never the run.
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

  /** The `onEvent` callback to give the run. */
  readonly onEvent = (event: AgentStreamEvent): void => {
    if (event.type === "text-delta") {
      this.#sink.text(event.text);
      return;
    }
    const logged = this.#loggedAs(event);
    if (logged !== null) this.#fold(logged);
    if (logged !== null || event.type === "step-started" || event.type === "finished") this.#report();
  };

  /** The event the log holds for what `event` tells, or `null` for what the log does not hold (a step's start, a delta). */
  #loggedAs(event: AgentStreamEvent): RunEvent | null {
    switch (event.type) {
      case "step-finished":
        return { type: "model.replied", reply: event.reply };
      case "tool-started":
        return { type: "tool.started", callId: event.call.id, name: event.call.name };
      case "tool-finished":
        return { type: "tool.finished", callId: event.call.id, content: event.content };
      case "decision-given": {
        const { approved, reason } = event.decision;
        const decided = { type: "approval.decided", callId: event.call.id, approved } as const;
        return reason === undefined ? decided : { ...decided, reason };
      }
      case "finished": {
        // A cancellation is logged, not told: the result says it.
        const active = this.#tracer.settings !== null && this.#tracer.fold.snapshot.status === "active";
        return event.result.status === "cancelled" && active ? { type: "run.cancelled" } : null;
      }
      default:
        return null;
    }
  }

  #fold(event: RunEvent): void {
    if (this.#broken) return;
    const seq = this.#tracer.fold.length;
    try {
      this.#tracer.add({ ...event, seq, at: new Date().toISOString() });
    } catch {
      this.#broken = true;
    }
  }

  #report(): void {
    const { fold, settings } = this.#tracer;
    if (this.#broken || settings === null) return;
    const tally = tallyOf(fold.snapshot);
    const running = new Map<string, number>();
    for (const name of fold.running.values()) running.set(name, (running.get(name) ?? 0) + 1);
    const tools = [...running].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`));
    this.#sink.progress({
      state: stateName(fold.chart, fold.state),
      steps: tally.turnSteps,
      maxSteps: tally.maxSteps,
      tokens: tally.turnTokens,
      tokenBudget: tally.tokenBudget,
      tool: tools.length === 0 ? null : tools.join(", "),
      turn: fold.turn,
    });
  }
}
