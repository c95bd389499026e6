import { EventLogError } from "../log/index.js";
import type { ServeOptions } from "./serve-options.js";

/** A request a front door turns away, with the HTTP status that says why (400, 404, 409); its message is for the client. */
export class ServeRefusal extends Error {
  override readonly name = "ServeRefusal";
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a client is told of the error run `runId` failed with: "the agent failed (<runId>)", or the
 * error's own message with `exposeErrors`. The error itself goes to `onError`, and stays in the log
 * where the run logged it (a failed model call's `model.failed`).
 */
export function clientError(
  serve: Pick<ServeOptions, "exposeErrors" | "onError">,
  runId: string,
  error: unknown,
): string {
  serve.onError?.(error, { runId });
  if (serve.exposeErrors === true) return error instanceof Error ? error.message : String(error);
  return `the agent failed (${runId})`;
}

/**
 * How a front door answers an error a run rejected with before telling anything: a request the
 * run refuses (a decision for a call that waits for none, an answer off its question's shape, a log
 * another writer holds) is 409, a malformed one 400, with the run's own words; any other error is
 * the run's failure, answered 500 as `clientError` tells it.
 */
export function refusalOf(
  serve: Pick<ServeOptions, "exposeErrors">,
  runId: string,
  error: unknown,
): { readonly status: number; readonly message: string } {
  if (error instanceof ServeRefusal) return { status: error.status, message: error.message };
  if (error instanceof EventLogError) {
    // Its words name the store's files, a lock's process and host: the client is told what, not where.
    const message =
      serve.exposeErrors === true
        ? error.message
        : `the log of '${runId}' cannot be used now: another writer holds it, or it needs a repair`;
    return { status: 409, message };
  }
  if (error instanceof RangeError) return { status: 409, message: error.message };
  if (error instanceof TypeError) return { status: 400, message: error.message };
  return { status: 500, message: clientError(serve, runId, error) };
}

/** Whether a run's error is its refusal of the request (a decision for a call that waits for none, an answer off its question's shape, a log another writer holds) rather than its failure. */
export function isRefusal(error: unknown): boolean {
  return (
    error instanceof ServeRefusal ||
    error instanceof RangeError ||
    error instanceof TypeError ||
    error instanceof EventLogError
  );
}

/** Hands the error run `runId` failed with to `onError`, once; a refusal (`isRefusal`) is no failure. */
export function reportFailure(serve: Pick<ServeOptions, "onError">, runId: string, error: unknown): void {
  if (!isRefusal(error)) serve.onError?.(error, { runId });
}
