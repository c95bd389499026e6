import type { EventStore, Model, ResumeOptions, ToolRegistry } from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";

/** What a served agent runs with: its model and tools, the store that keeps each conversation, and its limits and policies. */
export interface ServeOptions {
  readonly model: Model;
  readonly registry: ToolRegistry;
  /** Keeps each conversation as one logged run, under the client's thread id. */
  readonly store: EventStore;
  readonly options?: AgentOptions;
}

/**
 * The served options a run's log cannot hold (functions and models: `prepareStep`,
 * `fallbackModels`, the compaction's `summarizer`): what a continued or resumed thread is given
 * again, so that it goes on with every policy it started with. The rest is read from the log.
 */
export function turnOptionsOf(
  options: AgentOptions | undefined,
): Pick<ResumeOptions, "prepareStep" | "fallbackModels" | "compaction"> {
  if (options === undefined) return {};
  const { prepareStep, fallbackModels, compaction } = options;
  const summarizer = compaction?.summarizer;
  return {
    ...(prepareStep === undefined ? {} : { prepareStep }),
    ...(fallbackModels === undefined ? {} : { fallbackModels }),
    ...(summarizer === undefined ? {} : { compaction: { summarizer } }),
  };
}
