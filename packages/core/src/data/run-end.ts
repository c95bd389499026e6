const RUN_ENDED = new Error("the run ended or was cancelled");

/**
 * The end of a run (it ended, was stopped, or its signal aborted): a flag for the driver to check,
 * and a signal for the model and the tools, made only when one of them reads it. Most never do,
 * and an AbortController that is aborted at every run's end costs more than a step.
 */
export class RunEnd {
  #ended = false;
  #controller: AbortController | undefined;

  get ended(): boolean {
    return this.#ended;
  }

  /** Aborts once the run ends. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#ended) this.#controller.abort(RUN_ENDED);
    }
    return this.#controller.signal;
  }

  readonly end = (): void => {
    if (this.#ended) return;
    this.#ended = true;
    // A shared reason: `abort()` without one builds a DOMException, stack and all.
    this.#controller?.abort(RUN_ENDED);
  };
}
