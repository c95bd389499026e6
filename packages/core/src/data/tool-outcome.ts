import type { MessageContent } from "./content-part.js";

/** How the tool registry's run of one call ended: a result, or why it is an error. */
export type ToolOutcomeKind = "ok" | "invalid-args" | "threw" | "timeout" | "unknown-tool";

/** What the registry made of one call: how it ended, and the observation the model is shown. */
export interface ToolOutcome {
  readonly kind: ToolOutcomeKind;
  /** The result as JSON, the parts a tool returned (`contentParts`), or an `ERROR:` sentence for any other kind. */
  readonly content: MessageContent;
}

/**
 * Why a logged observation is an error (`tool.finished`'s `failure`): how the registry's run of the
 * call failed, `lost` (the process stopped while the call ran, and it may not run again), or `child`
 * (an agent tool's child run could not start, or ended without an answer).
 */
export type ToolFailure = Exclude<ToolOutcomeKind, "ok"> | "lost" | "child";

/** Every `ToolFailure`, as the log's check accepts them. */
export const TOOL_FAILURES: readonly ToolFailure[] = [
  "invalid-args",
  "threw",
  "timeout",
  "unknown-tool",
  "lost",
  "child",
];
