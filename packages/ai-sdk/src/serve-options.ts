import type { EventStore, Model, ResumeOptions, RunOptions, ToolRegistry } from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";

/** What a served agent runs with: its model and tools, the store that keeps each conversation, and the settings of its runs. */
export interface ServeOptions {
  readonly model: Model;
  readonly registry: ToolRegistry;
  readonly store: EventStore;
  readonly options?: AgentOptions & Pick<RunOptions, "output" | "guardrails" | "toolTimeoutMs" | "maxResultChars">;
}

/** The served options a run's log cannot hold, as every turn after the first is given them again. */
export type TurnOptions = Pick<
  ResumeOptions,
  "prepareStep" | "fallbackModels" | "compaction" | "output" | "guardrails" | "toolTimeoutMs" | "maxResultChars"
>;

/**
 * The options of the server's that a log cannot hold (functions and models: `prepareStep`,
 * `fallbackModels`, the compaction's `summarizer`, `output`, `guardrails`) and the run-time
 * safeguards: what a continued or resumed turn is given, so that a conversation goes on with every
 * policy it started with. The limits and policies a log holds (`maxSteps`, `retry`, `pricing`, ...)
 * are read from the log, and a resume refuses them given again.
 */
export function turnOptionsOf(options: ServeOptions["options"]): TurnOptions {
  if (options === undefined) return {};
  const { prepareStep, fallbackModels, compaction, output, guardrails, toolTimeoutMs, maxResultChars } = options;
  const summarizer = compaction?.summarizer;
  return {
    ...(prepareStep === undefined ? {} : { prepareStep }),
    ...(fallbackModels === undefined ? {} : { fallbackModels }),
    ...(summarizer === undefined ? {} : { compaction: { summarizer } }),
    ...(output === undefined ? {} : { output }),
    ...(guardrails === undefined ? {} : { guardrails }),
    ...(toolTimeoutMs === undefined ? {} : { toolTimeoutMs }),
    ...(maxResultChars === undefined ? {} : { maxResultChars }),
  };
}
