import type { AgentStreamEvent } from "../core-api.js";
import { failedAttempt } from "../trace/event-description.js";
import type { Palette } from "./colors.js";

/** A failed model attempt (its logged `model.failed`), or the wait before the next one, as the run tells them. */
export type AttemptNotice =
  | Extract<Extract<AgentStreamEvent, { readonly type: "logged" }>["event"], { readonly type: "model.failed" }>
  | Extract<AgentStreamEvent, { readonly type: "retry-waiting" }>;

/** Where a live run is: its state, model calls made of the limit, tokens spent of the budget (both per turn). */
export interface Progress {
  readonly state: string;
  readonly steps: number;
  readonly maxSteps: number;
  readonly tokens: number;
  readonly tokenBudget: number;
  /** The tools running now, if any (several when calls run at once). */
  readonly tool: string | null;
  /** The turn of the conversation, from 1. */
  readonly turn?: number;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const CLEAR_LINE = "\r\u001b[2K";

/** Where progress goes: a terminal (one line rewritten in place) or anything else (one plain line per change). */
export interface ProgressSink {
  readonly write: (text: string) => void;
  readonly live: boolean;
}

/**
 * Shows a live run's progress: on a terminal one line, rewritten in place as the run moves and
 * every 100 milliseconds for the elapsed time, with the model's text printed above it as it
 * streams; elsewhere a plain line each time the state, the step or the tokens change (the text is
 * not streamed there: the answer is printed with the result). `finish` leaves the last line in place.
 */
export class ProgressLine {
  readonly #sink: ProgressSink;
  readonly #colors: Palette;
  readonly #started = Date.now();
  #last: Progress | null = null;
  #lastPlain = "";
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Whether streamed text is being written: the progress line waits below it until the text ends. */
  #writing = false;

  constructor(sink: ProgressSink, colors: Palette) {
    this.#sink = sink;
    this.#colors = colors;
    if (sink.live) this.#timer = setInterval(() => this.#render(), 100);
    this.#timer?.unref();
  }

  update(progress: Progress): void {
    this.#last = progress;
    this.#endText();
    if (this.#sink.live) {
      this.#render();
      return;
    }
    const line = describe(progress, this.#colors);
    if (line === this.#lastPlain) return;
    this.#lastPlain = line;
    this.#sink.write(`${this.#colors.dim("progress")}  ${line}\n`);
  }

  /** A piece of the model's text as it streams: on a terminal it is printed at once, in place of the progress line. */
  text(piece: string): void {
    if (!this.#sink.live || piece === "") return;
    if (!this.#writing) this.#sink.write(`${CLEAR_LINE}${this.#colors.magenta("assistant")} `);
    this.#writing = true;
    this.#sink.write(piece);
  }

  /** A failed model attempt or the wait before the next: a line of its own, above the progress line on a terminal. */
  attempt(notice: AttemptNotice): void {
    this.#endText();
    const line = attemptLine(notice, this.#colors);
    this.#sink.write(this.#sink.live ? `${CLEAR_LINE}${line}\n` : `${line}\n`);
    this.#render();
  }

  finish(): void {
    clearInterval(this.#timer);
    this.#endText();
    if (this.#sink.live && this.#last !== null) {
      this.#render(true);
      this.#sink.write("\n");
    }
  }

  #endText(): void {
    if (!this.#writing) return;
    this.#writing = false;
    this.#sink.write("\n");
  }

  #render(final = false): void {
    if (!this.#sink.live || this.#last === null || this.#writing) return;
    const seconds = ((Date.now() - this.#started) / 1000).toFixed(1);
    const spinner = final ? this.#colors.green("✓") : this.#colors.cyan(SPINNER[this.#frame++ % SPINNER.length] ?? "");
    this.#sink.write(
      `${CLEAR_LINE}${spinner} ${describe(this.#last, this.#colors)} ${this.#colors.dim(`· ${seconds}s`)}`,
    );
  }
}

function describe(progress: Progress, colors: Palette): string {
  const budget = Number.isFinite(progress.tokenBudget) ? String(progress.tokenBudget) : "∞";
  const tool = progress.tool === null ? "" : ` (${progress.tool})`;
  const turn = (progress.turn ?? 1) > 1 ? [`turn ${progress.turn}`] : [];
  return [
    ...turn,
    colors.yellow(`${progress.state}${tool}`),
    `step ${progress.steps} of ${progress.maxSteps}`,
    `tokens ${progress.tokens} of ${budget}`,
  ].join(colors.dim(" · "));
}

function attemptLine(notice: AttemptNotice, colors: Palette): string {
  if (notice.type === "model.failed") return `${colors.red("failed")}    ${failedAttempt(notice)}`;
  const { delayMs, step } = notice;
  const wait = delayMs < 1000 ? `${delayMs} ms` : `${(delayMs / 1000).toFixed(1)} s`;
  return `${colors.dim("waiting")}   ${wait} before model call ${step} is tried again`;
}
