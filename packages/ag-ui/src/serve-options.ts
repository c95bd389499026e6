import type { EventStore, Model, ToolRegistry } from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";

/** What a served agent runs with: its model and tools, the store that keeps each conversation, and its limits and policies. */
export interface ServeOptions {
  readonly model: Model;
  readonly registry: ToolRegistry;
  /** Keeps each conversation as one logged run, under the client's thread id. */
  readonly store: EventStore;
  readonly options?: AgentOptions;
}
