// What a model adapter needs beyond the root's types: `@agentloop/core/adapter`.
// JSON Pointers into a tool's schema (a `$ref`'s target), for adapters that adapt schemas on the wire.
export { pointerSegments, valueAt } from "./arg-path.js";
export { assignCallIds } from "./assign-call-ids.js";
export { checkReply, copyReply, MAX_ARGS_DEPTH } from "./check-reply.js";
export { countTokens } from "./count-tokens.js";
export { isErrorMessage } from "./log-flags.js";
export type { ModelWithLimits } from "./settings.js";
export type {
  FinishReason,
  Message,
  Model,
  ModelCallOptions,
  ModelDelta,
  ModelReply,
  ReasoningPart,
  ToolCall,
  ToolSpec,
  Usage,
} from "./types.js";
