import { type RunOptions, runAgent } from "./run-agent.js";
import type { ModelWithLimits } from "./settings.js";
import type { AgentStreamEvent } from "./stream-events.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { AgentResult } from "./types.js";

/** A run as it happens: iterate its events, and await its `result`. */
export interface AgentStream extends AsyncIterable<AgentStreamEvent> {
  /** The run's result; rejects as `runAgent` would. */
  readonly result: Promise<AgentResult>;
}

/**
 * Runs `task` like `runAgent` and yields its events as they happen (see `AgentStreamEvent`):
 * the deltas of each model call as the model streams them, each step's start and reply, each tool
 * call's start and result, decisions asked for and given, and last `finished` with the result. A
 * failing run rejects `result` and throws from the iteration; a caller who consumes only one of
 * the two never sees an unhandled rejection from the other.
 *
 * A slow consumer holds back nothing and piles up little: the run goes on at its own pace, and
 * while the consumer lags, the deltas waiting for it are merged (consecutive text of one step
 * becomes one delta), so what waits is at most the run's events plus the text of the reply being
 * written. The stream can be iterated once; leaving the loop early stops the iteration, not the
 * run (abort its `signal` for that).
 */
export function streamAgent(
  task: string,
  model: ModelWithLimits,
  registry: ToolRegistry,
  options: RunOptions = {},
): AgentStream {
  const queue = new EventQueue();
  const listener = options.onEvent;
  const result = runAgent(task, model, registry, {
    ...options,
    onEvent: (event) => {
      listener?.(event);
      queue.push(event);
    },
  });
  result.then(
    () => queue.close(),
    (error: unknown) => queue.fail(error),
  );
  // Handled here, so that a caller who only iterates sees no unhandled rejection.
  result.catch(() => {});
  let iterated = false;
  return {
    result,
    [Symbol.asyncIterator]: () => {
      if (iterated) throw new TypeError("an agent stream can be iterated once");
      iterated = true;
      return queue.iterator();
    },
  };
}

/** Events waiting for the consumer, with consecutive deltas of one kind merged, then the end or the failure. */
class EventQueue {
  readonly #events: AgentStreamEvent[] = [];
  #end: { readonly error?: unknown } | null = null;
  #wake: (() => void) | null = null;
  #abandoned = false;

  push(event: AgentStreamEvent): void {
    if (this.#abandoned) return;
    const last = this.#events.at(-1);
    const merged = last === undefined ? null : merge(last, event);
    if (merged === null) this.#events.push(event);
    else this.#events[this.#events.length - 1] = merged;
    this.#notify();
  }

  close(): void {
    this.#end ??= {};
    this.#notify();
  }

  fail(error: unknown): void {
    this.#end ??= { error };
    this.#notify();
  }

  iterator(): AsyncIterator<AgentStreamEvent> {
    return {
      next: async () => {
        for (;;) {
          const event = this.#events.shift();
          if (event !== undefined) return { value: event, done: false };
          if (this.#end !== null) {
            if ("error" in this.#end) throw this.#end.error;
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
        }
      },
      return: async () => {
        this.#abandoned = true;
        this.#events.length = 0;
        return { value: undefined, done: true };
      },
    };
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}

/** One delta for two consecutive deltas of the same kind, step (and call), or null when they do not merge. */
function merge(last: AgentStreamEvent, next: AgentStreamEvent): AgentStreamEvent | null {
  if (last.type === "text-delta" && next.type === "text-delta" && last.step === next.step) {
    return { ...last, text: last.text + next.text };
  }
  if (last.type === "reasoning-delta" && next.type === "reasoning-delta" && last.step === next.step) {
    return { ...last, text: last.text + next.text };
  }
  if (
    last.type === "tool-call-delta" &&
    next.type === "tool-call-delta" &&
    last.step === next.step &&
    last.index === next.index &&
    next.id === undefined &&
    next.name === undefined
  ) {
    return { ...last, argsText: last.argsText + next.argsText };
  }
  return null;
}
