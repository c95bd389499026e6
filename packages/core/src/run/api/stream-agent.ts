import type { AgentResult, MessageContent } from "../../data/index.js";
import type { ToolRegistry, ToolSchema } from "../../tools/index.js";
import type { AgentStreamEvent } from "../loop/index.js";
import { StreamQueue } from "../loop/index.js";
import type { ModelWithLimits } from "../options/index.js";
import type { OutputOf } from "../performers/index.js";
import { type RunOptions, runAgent } from "./run-agent.js";

/** A run as it happens: iterate its events, and await its `result`. */
export interface AgentStream<Output = unknown> extends AsyncIterable<AgentStreamEvent> {
  /** The run's result; rejects as `runAgent` would. */
  readonly result: Promise<AgentResult<Output>>;
}

/**
 * Runs `task` like `runAgent` and yields its events as they happen (see `AgentStreamEvent`):
 * the deltas of each model call as the model streams them, each step's start and reply, each tool
 * call's start and result, decisions asked for and given, and last `finished` with the result. A
 * failing run rejects `result` and throws from the iteration; a caller who consumes only one of
 * the two never sees an unhandled rejection from the other.
 *
 * A slow consumer holds back nothing and piles up little: the run goes on at its own pace, and
 * while the consumer lags, the deltas waiting for it are merged per kind and call however they
 * interleave (all the waiting text of a step becomes one delta, in the place of its first piece),
 * so what waits is at most the run's events plus one delta per kind and call of the reply being
 * written. The stream can be iterated once; leaving the loop early stops the iteration, not the
 * run (abort its `signal` for that).
 */
export function streamAgent<Output extends ToolSchema = never>(
  task: MessageContent,
  model: ModelWithLimits,
  registry: ToolRegistry,
  options: RunOptions<Output> = {},
): AgentStream<OutputOf<Output>> {
  const queue = new StreamQueue();
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
