import type { EventStore, Model, ResumeOptions, RunOptions, ToolRegistry } from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";

/** What a served agent runs with: its model and tools, the store that keeps its runs, and its limits and policies. */
export interface ServeOptions {
  readonly model: Model;
  readonly registry: ToolRegistry;
  readonly store: EventStore;
  /** A typed `output` comes back as the result's `structuredContent`. */
  readonly options?: AgentOptions & Pick<RunOptions, "output" | "guardrails" | "toolTimeoutMs" | "maxResultChars">;
}

/**
 * The options a resumed or continued run is given again: what its log does not hold (functions
 * and models: `prepareStep`, `fallbackModels`, the compaction's `summarizer`, `output`,
 * `guardrails`) and the run-time safeguards, so that a run goes on with every policy it started
 * with. The limits and policies a log holds (`maxSteps`, `retry`, `pricing`, ...) are read from it.
 */
export function turnOptionsOf(
  serve: ServeOptions,
): Pick<
  ResumeOptions,
  "prepareStep" | "fallbackModels" | "compaction" | "output" | "guardrails" | "toolTimeoutMs" | "maxResultChars"
> {
  const { prepareStep, fallbackModels, compaction, output, guardrails, toolTimeoutMs, maxResultChars } =
    serve.options ?? {};
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
