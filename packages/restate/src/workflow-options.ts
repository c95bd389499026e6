import type { EventStore, ToolRegistry } from "@agentloop/core";
import type { Approver } from "@agentloop/core/driver";
import type { TurnOptions } from "@agentloop/core/machine";
import type { WorkflowOptions } from "@restatedev/restate-sdk";
import type { AgentOptions, ModelWithLimits, ToolLimits } from "./core-port.js";
import type { StepRetry } from "./journaled-steps.js";

/** What an agent workflow runs: the model, the tools, the defaults of each run, and where its log is mirrored. */
export interface AgentWorkflowOptions extends AgentOptions, TurnOptions, ToolLimits {
  /** The workflow's name in Restate (default `agent`): the ingress path is `/<name>/<runId>/<handler>`. */
  readonly name?: string;
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
  /** Each run's event log is mirrored there too (appended idempotently: a retried execution never appends twice). */
  readonly store?: EventStore;
  /** Decides on calls to tools registered with `needsApproval`, as a journaled step; `undefined` leaves the call waiting for `decide`. */
  readonly approve?: Approver;
  /** How a failing model call is retried (Restate's `ctx.run` options; default: the server's retry policy). */
  readonly modelRetry?: StepRetry;
  /**
   * Events the run may log between two saves of its log to the workflow's state (`events`,
   * `status().events`). Default: it is saved when the run waits for a decision and when it ends,
   * since every save is a durable write of its own; the mirror (`store`) gets every event at once.
   */
  readonly saveEventsEvery?: number;
  /** Restate's own options for the workflow: retention, timeouts, retry policy. */
  readonly restate?: WorkflowOptions;
}
