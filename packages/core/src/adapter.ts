// What a model adapter needs beyond the root's types: `@agentloop/core/adapter`.
export { assignCallIds } from "./assign-call-ids.js";
export { checkReply, copyReply, MAX_ARGS_DEPTH } from "./check-reply.js";
export { countTokens } from "./count-tokens.js";
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
