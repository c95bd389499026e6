// What a model adapter needs beyond the root's types: `@agentloop/core/adapter`.
// JSON Pointers into a tool's schema (a `$ref`'s target), for adapters that adapt schemas on the wire.

export type {
  FinishReason,
  Message,
  Model,
  ModelCallOptions,
  ModelDelta,
  ModelReply,
  ReasoningPart,
  ToolCall,
  ToolChoice,
  ToolSpec,
  Usage,
} from "./data/index.js";
export {
  type AdapterErrorClass,
  adapterErrorClass,
  assignCallIds,
  checkReply,
  copyReply,
  countTokens,
  describeThrown,
  isErrorMessage,
  isRetryableFailure,
  MAX_ARGS_DEPTH,
  markFailure,
  type ProviderFailure,
  pointerSegments,
  readModelStream,
  retryAfterMs,
  type SdkErrorClasses,
  type SdkRequestOptions,
  type StreamCall,
  type StreamPump,
  type StreamReading,
  sdkFailure,
  sdkRequestOptions,
  valueAt,
} from "./data/index.js";
export type { ModelWithLimits } from "./run/index.js";
