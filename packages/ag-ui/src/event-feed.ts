import type { AgentResult, AgentStreamEvent } from "@agentloop/core";

/** A run's events as they come; `started` settles once it told its first event, or rejects as the run did before any. */
export interface EventFeed extends AsyncIterable<AgentStreamEvent> {
  readonly started: Promise<void>;
}

/**
 * Turns a run started with an `onEvent` listener into the events it tells, in order, ending when
 * the run settles: a run that rejects throws its error from the iteration after its last event.
 */
export function eventFeed(start: (onEvent: (event: AgentStreamEvent) => void) => Promise<AgentResult>): EventFeed {
  const waiting: AgentStreamEvent[] = [];
  let markStarted: () => void = () => {};
  let failStart: (error: unknown) => void = () => {};
  const started = new Promise<void>((resolve, reject) => {
    markStarted = resolve;
    failStart = reject;
  });
  started.catch(() => {});
  let settled: { readonly error?: unknown; readonly failed: boolean } | null = null;
  let wake: (() => void) | null = null;
  const nudge = () => {
    wake?.();
    wake = null;
  };
  start((event) => {
    waiting.push(event);
    markStarted();
    nudge();
  }).then(
    () => {
      settled = { failed: false };
      markStarted();
      nudge();
    },
    (error: unknown) => {
      settled = { error, failed: true };
      failStart(error);
      nudge();
    },
  );
  return {
    started,
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = waiting.shift();
        if (next !== undefined) {
          yield next;
          continue;
        }
        const end: { readonly error?: unknown; readonly failed: boolean } | null = settled;
        if (end !== null) {
          if (end.failed) throw end.error;
          return;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
