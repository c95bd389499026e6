// The driver's parts, for driving the machine yourself (a durable workflow, a queue worker):
// the performers that turn a request into the event that answers it, and the loop that runs
// them: `@agentloop/core/driver`.
export {
  type AgentActor,
  type ApprovalDecided,
  type Approver,
  type ApproverAnswer,
  type AskModelOptions,
  askApprover,
  askModel,
  DEFAULT_TOOL_TIMEOUT_MS,
  type DrivenMachine,
  drivenMachine,
  type EffectPorts,
  type LoopOutcome,
  lostResult,
  type ModelAnswer,
  type ModelReplied,
  type ModelRequest,
  mayRunAgain,
  RunLoop,
  type RunToolOptions,
  runTool,
  type ToolAnswer,
  type ToolFinished,
} from "./run/index.js";
