import type { EventStore } from "@agentloop/core";
import { clientError, perStore, type ServeOptions } from "@agentloop/core/serve";
import type { StoredEvent } from "@agentloop/core/store";

/** An error a task's run failed with in this process, as the client is told it, and how long its log was then. */
interface Failure {
  readonly message: string;
  readonly logged: number | undefined;
}

// Kept per store, as the serving core's runs are: every handler of the store in this process sees them.
const failuresOf = perStore<Failure>();

/**
 * The served options with an `onError` that also keeps what the client is told of each failure:
 * a run that failed without a retry logs nothing of it, so only this process can say the task failed.
 */
export function keepingFailures(serve: ServeOptions): ServeOptions {
  const { store } = serve;
  return {
    ...serve,
    onError: (error, context) => {
      serve.onError?.(error, context);
      const message = clientError({ exposeErrors: serve.exposeErrors }, context.runId, error);
      const kept = failuresOf(store);
      kept.set(context.runId, { message, logged: undefined });
      void store.read(context.runId).then(
        (events) => kept.set(context.runId, { message, logged: events.length }),
        () => {},
      );
    },
  };
}

/** What the client is told of the failure of task `runId`, while its log `events` is as it was when it failed. */
export function failureOf(store: EventStore, runId: string, events: readonly StoredEvent[]): string | undefined {
  const failure = failuresOf(store).get(runId);
  if (failure === undefined) return undefined;
  if (failure.logged !== undefined && failure.logged !== events.length) {
    failuresOf(store).delete(runId);
    return undefined;
  }
  return failure.message;
}
