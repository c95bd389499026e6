export {
  type AgentActorEvent,
  type AgentActorInput,
  type AgentActorLogic,
  type AgentActorProvided,
  type AgentActorSnapshot,
  type AgentParentEvent,
  type AgentTaskInput,
  agentActor,
  createAgentActor,
} from "./agent-actor.js";
export { agentMachine } from "./agent-machine.js";
export type { AgentView } from "./agent-view.js";
export type { ArgsOf } from "./args-of.js";
export { countTokens } from "./count-tokens.js";
export { AgentloopError, ModelError, ToolSchemaError } from "./errors.js";
export { EventLogError } from "./event-log-error.js";
export { type EventStore, MemoryEventStore, type RunLock } from "./event-store.js";
export { type JsonSchemaParameters, jsonSchema } from "./json-schema-parameters.js";
export type { ToolSchema } from "./parameters.js";
export { replayRun } from "./replay.js";
export { continueAgent, type ForkOptions, forkRun, type ResumeOptions, resumeAgent } from "./resume.js";
export { type RunOptions, runAgent } from "./run-agent.js";
export type { Approver } from "./run-effects.js";
export { asks, final, type ScriptedModel, scriptedModel, toolCall } from "./scripted-model.js";
export type { StandardToolSchema } from "./standard-schema.js";
export { type AgentStream, streamAgent } from "./stream-agent.js";
export type { AgentStreamEvent } from "./stream-events.js";
export { type Tool, type ToolContext, type ToolDefinition, tool } from "./tool.js";
export { type ToolFunction, type ToolOptions, ToolRegistry } from "./tool-registry.js";
export {
  AGENT_STATUSES,
  type AgentResult,
  type AgentStatus,
  type Decision,
  type Message,
  type Model,
  type ModelDelta,
  type ModelReply,
  type ToolCall,
  type ToolParameters,
  type ToolSpec,
  type Usage,
} from "./types.js";
export { validateArgs } from "./validate-args.js";
