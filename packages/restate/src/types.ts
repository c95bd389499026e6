import type { AgentResult, PendingQuestion, Pricing, ToolCall } from "@agentloop/core";
import type { AgentOptions } from "./core-port.js";

/**
 * What a run is submitted with: the task, and any limit or policy of `runAgent` for this run
 * (the workflow's own options are the defaults). JSON has no Infinity: `null` means no limit.
 */
export interface RunRequest extends Omit<AgentOptions, "tokenBudget" | "repeatLimit" | "toolConcurrency"> {
  readonly task: string;
  /** Tokens allowed over the run; `null` for no budget. */
  readonly tokenBudget?: number | null;
  /** The same call this many times in a row is not run; `null` never refuses one. */
  readonly repeatLimit?: number | null;
  /** How many calls of one reply may be in progress at once; `null` for all of them. */
  readonly toolConcurrency?: number | null;
}

/**
 * What makes a run the child of an agent tool's call: a workflow of its own, started by its
 * parent's workflow under the key `<parent run id>.<call id>` (the id `runAgent` gives its log).
 * JSON has no Infinity: a `null` budget is no limit.
 */
export interface ChildLink {
  /** The names of the agent tools from the root's registry down to the one this child runs. */
  readonly tools: readonly string[];
  readonly parent: { readonly runId: string; readonly callId: string };
  /** The chained id of the parent's call (`<call id>` under the root, `<call id>/<call id>` deeper): the root's approver sees the child's calls under it. */
  readonly chain: string;
  /** The child's share of what its parent had left when the call started. */
  readonly tokenBudget: number | null;
  readonly costBudget: number | null;
  /** The parent's pricing, for a child that has none of its own. */
  readonly pricing?: Pricing;
}

/** A child's run, as its parent's workflow submits it. */
export interface ChildRunRequest {
  readonly task: string;
  readonly child: ChildLink;
}

/** A decision on one call that waits for one (`status().awaitingDecision`); `reason` is shown to the model on a denial. */
export interface DecideRequest {
  readonly callId: string;
  readonly approved: boolean;
  readonly reason?: string;
}

/** An answer to one question that waits for one (`status().pendingQuestions`), checked against the question's shape. */
export interface AnswerRequest {
  readonly callId: string;
  /** Any JSON value that fits the question's `schema`, when it has one. */
  readonly answer: unknown;
}

/** Why a run is cancelled, for its `run.cancelled` event. */
export interface CancelRequest {
  readonly reason?: string;
}

/**
 * Where a run stands, as `status` tells it: `phase`, `awaitingDecision` and `pendingQuestions` are current; while the
 * run goes from step to step, the rest is as of the last write (when events were last saved).
 */
export interface RunStatus {
  readonly runId: string;
  /**
   * `unknown`: no run has started under this id (never submitted, or not started yet);
   * `running`; `awaiting_approval`: the run waits for `decide` on a call (and maybe for answers
   * too); `awaiting_input`: it waits for `answer` to questions only; `finished`: it ended
   * (its `result` is set); `failed`: the model could not be used after its retries (`error`).
   */
  readonly phase: "unknown" | "running" | "awaiting_approval" | "awaiting_input" | "finished" | "failed";
  /** The machine's state, e.g. `callingModel` or `executingTools.runningTools`; `null` when unknown. */
  readonly state: string | null;
  /** Model calls made. */
  readonly steps: number;
  readonly tokens: number;
  /** Events of the run's log that `events` returns now: all of them once the run waits for a decision or ended. */
  readonly events: number;
  /** Calls of the current reply that need a decision and have none yet, in call order: answer them with `decide`. */
  readonly awaitingDecision: readonly ToolCall[];
  /** Questions of ask-user tools that wait for an answer, in call order: answer them with `answer`. */
  readonly pendingQuestions: readonly PendingQuestion[];
  /** Tools running now. */
  readonly runningTools: readonly ToolCall[];
  readonly result: AgentResult | null;
  readonly error: string | null;
}

/** A decision as the durable promise carries it, stamped where it was made. */
export interface DecisionRecord {
  readonly approved: boolean;
  readonly reason?: string;
  /** When it was made (ISO 8601). */
  readonly at: string;
}

/** An answer as the durable promise carries it (checked against the question's shape), stamped where it was given. */
export interface AnswerRecord {
  readonly answer: unknown;
  /** When it was given (ISO 8601). */
  readonly at: string;
}

/** A cancellation as the durable promise carries it. */
export interface CancelRecord {
  readonly reason?: string;
  readonly at: string;
}
