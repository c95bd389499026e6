import type { StoredEvent } from "../data/index.js";
import { AgentloopError, isBranded } from "../data/index.js";

/**
 * An event log that cannot be used as it is: torn or corrupt, written by a newer schema, or not
 * matching the run it is asked to continue. `intact` holds the events before the problem, which
 * stay readable; `position` is the 0-based index of the offending event (or line).
 */
export class EventLogError extends AgentloopError {
  override readonly name = "EventLogError";
  readonly runId: string;
  readonly position: number;
  readonly intact: readonly StoredEvent[];

  constructor(
    message: string,
    details: { runId: string; position: number; intact?: readonly StoredEvent[]; cause?: unknown },
  ) {
    super(message, { cause: details.cause });
    this.runId = details.runId;
    this.position = details.position;
    this.intact = details.intact ?? [];
  }

  static override isInstance(value: unknown): value is EventLogError {
    return isBranded(value, "EventLogError");
  }
}
