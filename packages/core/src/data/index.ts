// The entry module of data/: what the rest of core uses from it, each name listed.

export { type AgentInputData, reviveData, splitInput } from "./agent-input.js";
export { argumentNamed, formatPath, pointerSegments, valueAt } from "./arg-path.js";
export { assignCallIds, claimCallIds, usedCallIds } from "./assign-call-ids.js";
export { chainCallId, escapeCallId, splitChainedId, unescapeCallId } from "./chained-id.js";
export { checkReply, copyReply, MAX_ARGS_DEPTH } from "./check-reply.js";
export { type CompactedView, summaryMessage, viewMessages } from "./compacted-view.js";
export {
  base64Bytes,
  bytesBase64,
  type ContentPart,
  ContentParts,
  contentParts,
  contentText,
  isHeldContent,
  MAX_PART_BYTES,
  type MediaPart,
  type MessageContent,
  normalizeContent,
  partUrl,
} from "./content-part.js";
export { countTokens, tokensOfLength } from "./count-tokens.js";
export { describeValue } from "./describe-value.js";
export {
  type AdapterErrorClass,
  AgentloopError,
  adapterErrorClass,
  describeThrown,
  isBranded,
  ModelError,
  ToolSchemaError,
} from "./errors.js";
export {
  type AgentEvent,
  type AgentProfile,
  type AgentRequest,
  type AnchorState,
  type AskToolSettings,
  type CeilingReached,
  type CompactionSettings,
  type ContextCompacted,
  type GuardrailChecked,
  type HandOffRequest,
  type HandoffEvent,
  type HandoffSettings,
  isPrincipal,
  type LifecycleEvent,
  type MemoryRecalled,
  type MemoryWritten,
  type ModelFailed,
  type OutputChecked,
  type PricedModel,
  type Principal,
  type QuestionAnswered,
  type RetrySettings,
  RUN_EVENT_TYPES,
  type RunAnchored,
  type RunEvent,
  type RunOutcome,
  type RunPrices,
  type RunSettings,
  type StepPrepared,
  type StoredEvent,
  type ToolAsked,
  type ToolPaused,
  type ToolResumed,
  toolFinished,
} from "./events.js";
export { deepFreeze } from "./frozen-json.js";
export type { Guardrail, Guardrails, GuardrailVerdict, TurnChecks } from "./guardrail.js";
export { type AgentShown, agentMessages, agentShown, agentShownTokens } from "./handoff.js";
export { checkHistory } from "./history.js";
export { isCount } from "./is-count.js";
export { isPlainObject } from "./is-plain-object.js";
export { copyJson, firstNonJson } from "./json-value.js";
export {
  EVENT_LOG_SCHEMA_VERSION,
  isErrorMessage,
  isErrorResult,
  isReadableSchema,
  LOG_FLAGS,
  type LogFlag,
  type LogFlags,
  logFlags,
  OLDEST_EVENT_LOG_SCHEMA_VERSION,
  toolFailureOf,
} from "./log-flags.js";
export {
  checkedScope,
  checkMemoryWrite,
  MAX_MEMORY_KEY_CHARS,
  type MemoryEmbed,
  type MemoryHit,
  type MemoryScope,
  type MemorySettings,
  type MemoryStore,
  sameScope,
  scopeKey,
  scopeProblem,
} from "./memory.js";
export { MEMORY_CLOSE, MEMORY_OPEN, memoryMessage, quotedMemories } from "./memory-quote.js";
export {
  checkedVector,
  checkLimit,
  compareKeys,
  cosine,
  type IndexedMemory,
  indexMemory,
  type LexicalCandidate,
  type LexicalCorpus,
  memoryTerms,
  memoryText,
  queryTerms,
  rankLexical,
  rankSemantic,
  rankTermRows,
  type ScopeSearch,
  searchMemory,
  type TermRow,
  topHits,
  type VectorCandidate,
} from "./memory-search.js";
export { readModelStream, type StreamCall, type StreamPump, type StreamReading } from "./model-stream.js";
export { pairedCalls } from "./paired-calls.js";
export { partTokens } from "./part-tokens.js";
export { failureOf, isRetryableFailure, markFailure, type ProviderFailure, retryAfterMs } from "./provider-error.js";
export { emptyUserMessage, ownedField, type RequestRule, requestProblems, streamField } from "./request-rules.js";
export { RunEnd } from "./run-end.js";
export { type SdkErrorClasses, sdkFailure } from "./sdk-failure.js";
export { type SdkRequestOptions, sdkRequestOptions } from "./sdk-request-options.js";
export { TOOL_FAILURES, type ToolFailure, type ToolOutcome, type ToolOutcomeKind } from "./tool-outcome.js";
export {
  appendCopy,
  appendMessage,
  createTranscript,
  lastMessage,
  listView,
  messageChars,
  messagesOf,
  Transcript,
  transcriptTokens,
  withoutLast,
} from "./transcript.js";
export {
  AGENT_STATUSES,
  type AgentResult,
  type AgentStatus,
  type CeilingHit,
  type Decision,
  END_STATUSES,
  type EndStatus,
  type FinishReason,
  type GuardrailStage,
  type GuardrailTrip,
  type JSONValue,
  type Message,
  type Model,
  type ModelCallOptions,
  type ModelDelta,
  type ModelPrice,
  type ModelReply,
  type ParameterType,
  type PendingQuestion,
  type Pricing,
  type ProviderMetadata,
  type ReasoningPart,
  type ToolCall,
  type ToolChoice,
  type ToolParameters,
  type ToolSpec,
  type Usage,
} from "./types.js";
