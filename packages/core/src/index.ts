export { type AgentActorInput, agentActor } from "./agent-actor.js";
export {
  type AgentContext,
  type AgentInput,
  type AgentMachineInput,
  type AgentOptions,
  DEFAULT_MAX_STEPS,
  DEFAULT_REPEAT_LIMIT,
  DEFAULT_SYSTEM,
  DEFAULT_TOKEN_BUDGET,
  type ModelWithLimits,
  resolveSettings,
} from "./agent-context.js";
export { type AgentEvent, type AgentSnapshot, agentMachine, pendingRequest } from "./agent-machine.js";
export { assignCallIds } from "./assign-call-ids.js";
export { checkReply } from "./check-reply.js";
export { countTokens } from "./count-tokens.js";
export { cutResult, DEFAULT_MAX_RESULT_CHARS } from "./cut-result.js";
export { AgentloopError, EventLogError, ModelError, ToolSchemaError } from "./errors.js";
export {
  EVENT_LOG_SCHEMA_VERSION,
  parseEventLog,
  RUN_EVENT_TYPES,
  type RunEvent,
  type RunOutcome,
  type RunSettings,
  type StoredEvent,
} from "./event-log.js";
export { checkAppend, type EventStore, MemoryEventStore, type RunSummary, summarize } from "./event-store.js";
export type { ArgsOf, InferJsonSchema } from "./infer-args.js";
export { Journal } from "./journal.js";
export { type JsonSchemaParameters, jsonSchema } from "./json-schema-parameters.js";
export type { ToolSchema } from "./parameters.js";
export { foldEvents, type Replay, type ReplayOptions, replayRun } from "./replay.js";
export { type ForkOptions, forkRun, type ResumeOptions, resumeAgent } from "./resume.js";
export { type RunOptions, runAgent } from "./run-agent.js";
export {
  type AgentActor,
  type Approver,
  DEFAULT_TOOL_TIMEOUT_MS,
  driveEffects,
  type EffectEvent,
  type EffectPorts,
  type EffectRequest,
  type Resumption,
} from "./run-effects.js";
export { asks, final, type ScriptedModel, scriptedModel, toolCall } from "./scripted-model.js";
export type { StandardToolSchema } from "./standard-schema.js";
export { type Tool, type ToolContext, type ToolDefinition, tool } from "./tool.js";
export { type ExecuteOptions, type ToolFunction, type ToolOptions, ToolRegistry } from "./tool-registry.js";
export { messagesOf, type Transcript } from "./transcript.js";
export type {
  AgentResult,
  AgentStatus,
  Decision,
  FinishReason,
  Message,
  Model,
  ModelCallOptions,
  ModelDelta,
  ModelReply,
  ParameterType,
  ReasoningPart,
  ToolCall,
  ToolParameters,
  ToolSpec,
  Usage,
} from "./types.js";
export { validateArgs } from "./validate-args.js";
