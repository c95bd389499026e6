import type { AgentResult, EventStore, Principal } from "@agentloop/core";
import {
  clientError,
  drive as driveLive,
  type LiveRun,
  perStore,
  reportFailure,
  type ServeOptions,
} from "@agentloop/core/serve";
import type { StoredEvent } from "@agentloop/core/store";

/** An error a run threw, as the client is told it, and how many events its log held then: the log says more once it has moved on. */
interface Failure {
  readonly message: string;
  /** `undefined` when the log could not be read then. */
  readonly logged: number | undefined;
}

// Kept per store, as the serving core's runs are: every server of the store in this process sees them.
const failuresOf = perStore<Failure>();

/**
 * Drives `work` as run `runId` for `owner`, one driver per run in this process (the serving
 * core's, so a second is refused with a `RangeError` and the first can still be stopped). An
 * error the run throws goes to `onError` and is kept as the task's failure (`failureOf`), as the
 * client may be told it, for as long as its log stays as it was; `keepFailure: false` leaves it to
 * the caller (a question the client did not answer is no failure of the run).
 */
export function drive(
  serve: ServeOptions,
  runId: string,
  owner: Principal | undefined,
  work: (signal: AbortSignal) => Promise<AgentResult>,
  keepFailure: (error: unknown) => boolean = () => true,
): LiveRun {
  const { store } = serve;
  failuresOf(store).delete(runId);
  return driveLive(store, runId, owner, work, async (error) => {
    if (!keepFailure(error)) return;
    reportFailure(serve, runId, error);
    const logged = await store.read(runId).then(
      (events) => events.length,
      () => undefined,
    );
    failuresOf(store).set(runId, { message: clientError(serve, runId, error), logged });
  });
}

/**
 * The error run `runId` threw in this process, as the client is told it, if its log `events` is
 * still as it was then (the log shows no end of the run, so only this process can tell why it
 * stopped). A log that moved on since (the run was taken up again, here or elsewhere) outranks it.
 */
export function failureOf(store: EventStore, runId: string, events: readonly StoredEvent[]): string | undefined {
  const failure = failuresOf(store).get(runId);
  if (failure === undefined) return undefined;
  const moved = failure.logged !== undefined && failure.logged !== events.length;
  if (moved || events.at(-1)?.type === "run.finished") {
    failuresOf(store).delete(runId);
    return undefined;
  }
  return failure.message;
}
