import type { AgentEvent, AgentRequest } from "../../data/index.js";
import { MAX_TIMER_MS } from "../../tools/index.js";
import type { EventAnswer } from "./event-answer.js";

/** A machine's request to wait before the next model attempt. */
export type RetryWaitRequest = Extract<AgentRequest, { type: "waitRetry" }>;

/** The end of the wait: the event that sends the machine back to the budget check. */
export type RetryWaited = EventAnswer<Extract<AgentEvent, { type: "retry.waited" }>>;

/**
 * The wait a request asks for, in milliseconds: the provider's `retry-after` as it is, the
 * harness's own backoff with "equal jitter" (between half of it and all of it), so that runs
 * failing together do not come back together. The randomness lives here, never in the machine.
 */
export function jitteredDelay(request: RetryWaitRequest, random: () => number = Math.random): number {
  const { delayMs, jitter } = request;
  const wait = jitter ? delayMs / 2 + (random() * delayMs) / 2 : delayMs;
  return Math.min(MAX_TIMER_MS, Math.max(0, Math.round(wait)));
}

/** The answer once a wait of `delayMs` has passed. */
export function retryWaited(delayMs: number): RetryWaited {
  return { type: "event", event: { type: "retry.waited", delayMs } };
}

/**
 * Waits `delayMs` milliseconds (see `jitteredDelay`) before the next attempt, and answers with
 * `retry.waited`. The run's signal ends the wait at once: the answer then never comes, and the
 * run's cancellation is what the machine takes next.
 */
export function waitRetry(delayMs: number, signal: AbortSignal): Promise<RetryWaited> {
  return new Promise((resolve) => {
    if (signal.aborted) return;
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve(retryWaited(delayMs));
    }, delayMs);
    const stop = () => clearTimeout(timer);
    signal.addEventListener("abort", stop, { once: true });
  });
}
