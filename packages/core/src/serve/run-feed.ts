import type { AgentResult } from "../data/index.js";
import type { AgentStreamEvent } from "../run/index.js";

/** A run started with a listener, as the events it tells: the iteration ends with the run and throws what it rejects with. */
export interface RunFeed extends AsyncIterable<AgentStreamEvent> {
  /** Settles once the run has told its first event or ended without one, or rejects as the run did before any event. */
  readonly started: Promise<void>;
  readonly result: Promise<AgentResult>;
}

/**
 * Starts `run` with a listener and keeps its events for one reader, however far behind it is: the
 * bridge from a run's `onEvent` to an async stream that every front door reads. A run that throws
 * before its first event rejects `started` as well as `result`.
 */
export function runFeed(run: (onEvent: (event: AgentStreamEvent) => void) => Promise<AgentResult>): RunFeed {
  const events: AgentStreamEvent[] = [];
  let settled: { readonly error: unknown } | "done" | undefined;
  let wake: (() => void) | undefined;
  let markStarted: () => void = () => {};
  let failStart: (error: unknown) => void = () => {};
  const started = new Promise<void>((resolve, reject) => {
    markStarted = resolve;
    failStart = reject;
  });
  started.catch(() => {});
  const result = new Promise<AgentResult>((resolve) => {
    resolve(
      run((event) => {
        events.push(event);
        markStarted();
        wake?.();
      }),
    );
  });
  result.then(
    () => {
      settled = "done";
      markStarted();
      wake?.();
    },
    (error: unknown) => {
      settled = { error };
      failStart(error);
      wake?.();
    },
  );
  async function* iterate(): AsyncGenerator<AgentStreamEvent> {
    for (;;) {
      const event = events.shift();
      if (event !== undefined) {
        yield event;
        continue;
      }
      if (settled === "done") return;
      if (settled !== undefined) throw settled.error;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  }
  return { started, result, [Symbol.asyncIterator]: iterate };
}
