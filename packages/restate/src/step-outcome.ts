import type { ToolCall } from "@agentloop/core";
import type { LoopAnswer } from "@agentloop/core/driver";
import type { RestatePromise, TerminalError } from "@restatedev/restate-sdk";

/** A journaled step the run waits for; `status` lists its call as running, or as waiting for `decide` or `answer`. */
export interface PendingStep {
  readonly key: string;
  readonly running: ToolCall | null;
  readonly deciding?: ToolCall;
  /** The run id of the child the step's call runs, as a workflow of its own. */
  readonly child?: string;
  readonly outcome: RestatePromise<Taken>;
}

/** What a journaled step came to: the loop's answer (none while a decision is still to wait for), stamped as journaled. */
export interface Taken {
  readonly key: string;
  readonly answer: LoopAnswer | null;
  readonly at: string;
  /** When a tool that may run again started (its start is logged with its end). */
  readonly startedAt?: string;
  readonly next?: () => PendingStep;
}

/** A mapped step's value, or its terminal failure thrown on (a model that failed past its retries). */
export function settled<T>(value: T | undefined, failure: TerminalError | undefined): T {
  if (failure !== undefined) throw failure;
  return value as T;
}

/** Now, as ISO 8601: read inside a journaled step only. */
export function now(): string {
  return new Date().toISOString();
}
