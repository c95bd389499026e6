// The driver's parts, for driving the machine yourself (a durable workflow, a queue worker):
// the performers that turn a request into the event that answers it, and the loop that runs
// them: `@agentloop/core/driver`.
export {
  type ApprovalDecided,
  type Approver,
  type ApproverAnswer,
  askApprover,
} from "./ask-approver.js";
export { type AskModelOptions, askModel, type ModelAnswer, type ModelReplied, type ModelRequest } from "./ask-model.js";
export { type AgentActor, drivenMachine } from "./driven-machine.js";
export { InProcess, type LoopAnswer, type Performing } from "./performing.js";
export { type DrivenMachine, type EffectPorts, type LoopOutcome, RunLoop } from "./run-loop.js";
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  lostResult,
  mayRunAgain,
  type RunToolOptions,
  runTool,
  type ToolAnswer,
  type ToolFinished,
} from "./run-tool.js";
