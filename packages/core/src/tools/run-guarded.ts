import type { MemoryScope } from "../data/index.js";
import type { ToolAsk, ToolFunction, ToolNote } from "./tool-function.js";

/** The `ask` of a tool run where nobody can answer. */
const cannotAsk: ToolAsk = (question) =>
  Promise.reject(new Error(`nobody can answer the question here (it was: ${JSON.stringify(question)})`));

/** The notes of a tool run outside a run: nothing is kept. */
const NO_NOTES: { readonly note: ToolNote; readonly notes: readonly unknown[] } = Object.freeze({
  note: () => Promise.resolve(),
  notes: Object.freeze([]),
});

/** Milliseconds a timer can wait: setTimeout fires at once for anything longer. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether `value` is a timeout a timer can honour: (0, 2^31 - 1] milliseconds, or Infinity for none. */
export function isTimeout(value: number): boolean {
  return value === Number.POSITIVE_INFINITY || (value > 0 && value <= MAX_TIMER_MS);
}

/**
 * What a guarded call's context holds besides its timeout: the run's signal (read only once the
 * function reads its own, so a getter stays lazy), its `ask` (absent: it rejects, since nobody can
 * answer), its `note` and its earlier attempts' notes (absent: nothing is kept), and the run's
 * memory scope (absent: the run has none).
 */
export interface GuardedCall {
  readonly signal?: AbortSignal | undefined;
  readonly ask?: ToolAsk | undefined;
  readonly notes?: { readonly note: ToolNote; readonly notes: readonly unknown[] } | undefined;
  readonly memoryScope?: MemoryScope | undefined;
}

/** How one tool function call ended. */
export type Outcome =
  | { readonly kind: "returned"; readonly value: unknown }
  | { readonly kind: "threw"; readonly error: unknown }
  | { readonly kind: "timedOut" };

/**
 * Calls a tool function and settles, whatever it does: returns, throws (anything, `null` too),
 * rejects, or never settles (after `timeoutMs` milliseconds, when given and finite). Its signal aborts on the
 * timeout and when the run's signal aborts (a timed call that read its signal then settles as
 * thrown, with the run's reason); `call.signal` is read only if the tool reads its own.
 * Its context tells it `timeoutMs` (Infinity for none). A function that returns at once is
 * answered at once, with no timer: a timer can only fire once the function yields, so a function
 * that blocks the event loop cannot be interrupted anyway.
 */
export function runGuarded(
  fn: ToolFunction<Record<string, unknown>>,
  args: Record<string, unknown>,
  timeoutMs: number | undefined,
  call: GuardedCall = {},
): Outcome | Promise<Outcome> {
  const ask = call.ask ?? cannotAsk;
  const notes = call.notes ?? NO_NOTES;
  // The tool's own signal is made only when the tool reads it: most tools never do, and an
  // AbortController with a listener on the run's signal costs more than the rest of the call.
  let controller: AbortController | undefined;
  let signal: AbortSignal | undefined;
  const abort = () => controller?.abort(signal?.reason);
  const context = {
    timeoutMs: timeoutMs ?? Number.POSITIVE_INFINITY,
    ask,
    note: notes.note,
    notes: notes.notes,
    memoryScope: call.memoryScope,
    get signal(): AbortSignal {
      if (controller === undefined) {
        controller = new AbortController();
        signal = call.signal;
        if (signal?.aborted) controller.abort(signal.reason);
        else signal?.addEventListener("abort", abort, { once: true });
      }
      return controller.signal;
    },
  };
  let value: unknown;
  let then: unknown;
  try {
    value = fn(args, context);
    // Read as `await` would read it: a `then` getter that throws is the function's failure.
    if ((typeof value === "object" || typeof value === "function") && value !== null) {
      then = (value as { then?: unknown }).then;
    }
  } catch (error) {
    return { kind: "threw", error };
  }
  if (typeof then !== "function") return { kind: "returned", value };
  const work = Promise.resolve(value).then(
    (result: unknown): Outcome => ({ kind: "returned", value: result }),
    (error: unknown): Outcome => ({ kind: "threw", error }),
  );
  if (timeoutMs === undefined || timeoutMs === Number.POSITIVE_INFINITY) return work.finally(() => release());
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => {
      resolve({ kind: "timedOut" });
      controller?.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    // Once the run stops (cancelled, or decided without this one), nobody waits for a function that
    // ignores its signal: settling here clears its timer, which would keep the process alive.
    controller?.signal.addEventListener("abort", () => resolve({ kind: "threw", error: controller?.signal.reason }), {
      once: true,
    });
  });
  return Promise.race([work, timeout]).finally(() => {
    clearTimeout(timer);
    release();
  });

  function release(): void {
    if (controller !== undefined) signal?.removeEventListener("abort", abort);
  }
}
