// The entry module of run/performers/: what the other rooms and run/ use from it, each name listed.

export {
  type Approver,
  askApprover,
  decidedAnswer,
} from "./ask-approver.js";
export {
  type AskModelOptions,
  askModel,
  type ModelAnswer,
  type ModelFailure,
  type ModelRequest,
} from "./ask-model.js";
export { type AnswerPort, answeredFrom, askPerson, checkAnswer } from "./ask-user.js";
export { compactContext } from "./compact-context.js";
export { DEFAULT_SYSTEM } from "./default-system.js";
export { answerOf, type EventAnswer, UNANSWERED, type Unanswered } from "./event-answer.js";
export {
  type HandoffAgent,
  type HandoffOptions,
  handoff,
  performHandoff,
  type RunAgent,
  runAgents,
  targetOf,
} from "./handoff.js";
export { memoryTools } from "./memory-tools.js";
export type { PrepareStep, StepInput, StepSettings } from "./prepare-step.js";
export { recallMemory } from "./recall-memory.js";
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  lostResult,
  mayRunAgain,
  type RunToolOptions,
  runTool,
  type ToolAnswer,
  type ToolAttempt,
} from "./run-tool.js";
export { checkCeiling, holdForCall, type SpendCeiling, type SpendHeld, settleSpent } from "./spend-ceiling.js";
export { StepPreparer } from "./step-preparer.js";
export {
  NO_CHECKS,
  type OutputOf,
  performCheck,
  resolveTurn,
  type TurnOptions,
  type TurnPorts,
} from "./turn-checks.js";
export { jitteredDelay, retryWaited, waitRetry } from "./wait-retry.js";
