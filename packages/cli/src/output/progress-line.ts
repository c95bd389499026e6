import type { Progress } from "../trace/progress-tap.js";
import type { Palette } from "./colors.js";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const CLEAR_LINE = "\r\u001b[2K";

/** Where progress goes: a terminal (one line rewritten in place) or anything else (one plain line per change). */
export interface ProgressSink {
  readonly write: (text: string) => void;
  readonly live: boolean;
}

/**
 * Shows a live run's progress: on a terminal one line, rewritten in place as the run moves and
 * every 100 milliseconds for the elapsed time; elsewhere a plain line each time the state, the
 * step or the tokens change. `finish` leaves the last line in place.
 */
export class ProgressLine {
  readonly #sink: ProgressSink;
  readonly #colors: Palette;
  readonly #started = Date.now();
  #last: Progress | null = null;
  #lastPlain = "";
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(sink: ProgressSink, colors: Palette) {
    this.#sink = sink;
    this.#colors = colors;
    if (sink.live) this.#timer = setInterval(() => this.#render(), 100);
    this.#timer?.unref();
  }

  update(progress: Progress): void {
    this.#last = progress;
    if (this.#sink.live) {
      this.#render();
      return;
    }
    const line = describe(progress, this.#colors);
    if (line === this.#lastPlain) return;
    this.#lastPlain = line;
    this.#sink.write(`${this.#colors.dim("progress")}  ${line}\n`);
  }

  finish(): void {
    clearInterval(this.#timer);
    if (this.#sink.live && this.#last !== null) {
      this.#render(true);
      this.#sink.write("\n");
    }
  }

  #render(final = false): void {
    if (this.#last === null) return;
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
  return [
    colors.yellow(`${progress.state}${tool}`),
    `step ${progress.steps} of ${progress.maxSteps}`,
    `tokens ${progress.tokens} of ${budget}`,
  ].join(colors.dim(" · "));
}
