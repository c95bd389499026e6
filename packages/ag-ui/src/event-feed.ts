import type { AgentResult, AgentStreamEvent } from "@agentloop/core";

/**
 * Turns a run started with an `onEvent` listener into the events it tells, in order, ending when
 * the run settles: a run that rejects throws its error from the iteration after its last event.
 */
export function eventFeed(
  start: (onEvent: (event: AgentStreamEvent) => void) => Promise<AgentResult>,
): AsyncIterable<AgentStreamEvent> {
  const waiting: AgentStreamEvent[] = [];
  let settled: { readonly error?: unknown; readonly failed: boolean } | null = null;
  let wake: (() => void) | null = null;
  const nudge = () => {
    wake?.();
    wake = null;
  };
  start((event) => {
    waiting.push(event);
    nudge();
  }).then(
    () => {
      settled = { failed: false };
      nudge();
    },
    (error: unknown) => {
      settled = { error, failed: true };
      nudge();
    },
  );
  return {
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
