import type { ToolFunction } from "./tool-registry.js";

/** Milliseconds a timer can wait: setTimeout fires at once for anything longer. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether `value` is a timeout a timer can honour: (0, 2^31 - 1] milliseconds, or Infinity for none. */
export function isTimeout(value: number): boolean {
  return value === Number.POSITIVE_INFINITY || (value > 0 && value <= MAX_TIMER_MS);
}

/** How one tool function call ended. */
export type Outcome =
  | { readonly kind: "returned"; readonly value: unknown }
  | { readonly kind: "threw"; readonly error: unknown }
  | { readonly kind: "timedOut" };

/**
 * Calls a tool function and settles, whatever it does: returns, throws (anything, `null` too),
 * rejects, or never settles (after `timeoutMs` milliseconds, when given and finite). Its signal aborts on the
 * timeout and when `signal` (the run's) aborts. A function that blocks the event loop cannot be
 * interrupted: the timer only fires once it yields.
 */
export async function runGuarded(
  fn: ToolFunction,
  args: Record<string, unknown>,
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
): Promise<Outcome> {
  // The tool's own signal is made only when the tool reads it: most tools never do, and an
  // AbortController with a listener on the run's signal costs more than the rest of the call.
  let controller: AbortController | undefined;
  const abort = () => controller?.abort(signal?.reason);
  const context = {
    get signal(): AbortSignal {
      if (controller === undefined) {
        controller = new AbortController();
        if (signal?.aborted) controller.abort(signal.reason);
        else signal?.addEventListener("abort", abort, { once: true });
      }
      return controller.signal;
    },
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const work = new Promise<Outcome>((resolve) => {
    Promise.resolve()
      .then(() => fn(args, context))
      .then(
        (value: unknown) => resolve({ kind: "returned", value }),
        (error: unknown) => resolve({ kind: "threw", error }),
      );
  });
  const timeout =
    timeoutMs === undefined || timeoutMs === Number.POSITIVE_INFINITY
      ? undefined
      : new Promise<Outcome>((resolve) => {
          timer = setTimeout(() => {
            controller?.abort(new Error(`timed out after ${timeoutMs} ms`));
            resolve({ kind: "timedOut" });
          }, timeoutMs);
        });
  try {
    return await (timeout === undefined ? work : Promise.race([work, timeout]));
  } finally {
    clearTimeout(timer);
    if (controller !== undefined) signal?.removeEventListener("abort", abort);
  }
}
