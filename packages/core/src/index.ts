export {
  AGENT_STATUSES,
  AgentloopError,
  type AgentResult,
  type AgentStatus,
  countTokens,
  type Decision,
  type Message,
  type Model,
  type ModelDelta,
  ModelError,
  type ModelReply,
  type ToolCall,
  type ToolParameters,
  ToolSchemaError,
  type ToolSpec,
  type Usage,
} from "./data/index.js";
export type { AgentView } from "./decide/index.js";
export { agentMachine } from "./decide/index.js";
export { EventLogError, type EventStore, MemoryEventStore, type RunLock, replayRun } from "./log/index.js";
export type { AgentStreamEvent, Approver } from "./run/index.js";
export {
  type AgentActorEvent,
  type AgentActorInput,
  type AgentActorLogic,
  type AgentActorProvided,
  type AgentActorSnapshot,
  type AgentParentEvent,
  type AgentStream,
  type AgentTaskInput,
  agentActor,
  asks,
  continueAgent,
  createAgentActor,
  type ForkOptions,
  final,
  forkRun,
  type ResumeOptions,
  type RunOptions,
  resumeAgent,
  runAgent,
  type ScriptedModel,
  scriptedModel,
  streamAgent,
  toolCall,
} from "./run/index.js";
export {
  type Tool,
  type ToolContext,
  type ToolDefinition,
  type ToolFunction,
  type ToolOptions,
  ToolRegistry,
  tool,
} from "./tools/index.js";
export type { ArgsOf, StandardToolSchema, ToolSchema } from "./tools/schema/index.js";
export { type JsonSchemaParameters, jsonSchema, validateArgs } from "./tools/schema/index.js";
