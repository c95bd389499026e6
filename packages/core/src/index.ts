export {
  type AgentContext,
  type AgentInput,
  type AgentOptions,
  DEFAULT_MAX_STEPS,
  DEFAULT_SYSTEM,
  DEFAULT_TOKEN_BUDGET,
} from "./agent-context.js";
export { type AgentEvent, agentMachine } from "./agent-machine.js";
export { checkReply } from "./check-reply.js";
export { countTokens } from "./count-tokens.js";
export { ModelError, ToolSchemaError } from "./errors.js";
export { runAgent } from "./run-agent.js";
export type { EffectEvent, EffectPorts, EffectRequest } from "./run-effects.js";
export { asks, final, type ScriptedModel, scriptedModel, toolCall } from "./scripted-model.js";
export { type ToolFunction, ToolRegistry } from "./tool-registry.js";
export { messagesOf, type Transcript } from "./transcript.js";
export type {
  AgentResult,
  AgentStatus,
  Message,
  Model,
  ModelReply,
  ParameterType,
  ToolCall,
  ToolParameters,
  ToolSpec,
  Usage,
} from "./types.js";
export { validateArgs } from "./validate-args.js";
