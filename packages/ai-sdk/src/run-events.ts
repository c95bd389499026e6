import type { AgentResult, AgentStreamEvent } from "@agentloop/core";

/** A run started with a listener, as the events it tells: the iteration ends with the run and throws what it rejects with. */
export interface RunEvents extends AsyncIterable<AgentStreamEvent> {
  /** Settles once the run has told its first event (`true`) or rejected before telling any (with that error). */
  readonly started: Promise<true>;
  readonly result: Promise<AgentResult>;
}

/** Starts `run` with a listener and keeps its events for one reader, however far behind it is. */
export function runEvents(run: (onEvent: (event: AgentStreamEvent) => void) => Promise<AgentResult>): RunEvents {
  const events: AgentStreamEvent[] = [];
  let settled: { error: unknown } | "done" | undefined;
  let wake: (() => void) | undefined;
  let markStarted: (value: true) => void = () => {};
  let failStart: (error: unknown) => void = () => {};
  const started = new Promise<true>((resolve, reject) => {
    markStarted = resolve;
    failStart = reject;
  });
  // A run that throws before it starts rejects like one that fails later.
  const result = new Promise<AgentResult>((resolve) => {
    resolve(
      run((event) => {
        events.push(event);
        markStarted(true);
        wake?.();
      }),
    );
  });
  result.catch(failStart);
  result.then(
    () => {
      settled = "done";
      wake?.();
    },
    (error: unknown) => {
      settled = { error };
      wake?.();
    },
  );
  started.catch(() => {});
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
