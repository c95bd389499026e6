import type { EventStore, Model, RunOptions, ToolRegistry } from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";

/** What a served agent runs with: its model and tools, the store that keeps its runs, and its limits and policies. */
export interface ServeOptions {
  readonly model: Model;
  readonly registry: ToolRegistry;
  readonly store: EventStore;
  /** A typed `output` comes back as the result's `structuredContent`. */
  readonly options?: AgentOptions & Pick<RunOptions, "output" | "guardrails" | "toolTimeoutMs" | "maxResultChars">;
}

/** The options a resumed or continued run is given again: what its log does not hold. */
export function turnOptionsOf(
  serve: ServeOptions,
): Pick<RunOptions, "output" | "guardrails" | "toolTimeoutMs" | "maxResultChars"> {
  const { output, guardrails, toolTimeoutMs, maxResultChars } = serve.options ?? {};
  return {
    ...(output === undefined ? {} : { output }),
    ...(guardrails === undefined ? {} : { guardrails }),
    ...(toolTimeoutMs === undefined ? {} : { toolTimeoutMs }),
    ...(maxResultChars === undefined ? {} : { maxResultChars }),
  };
}
