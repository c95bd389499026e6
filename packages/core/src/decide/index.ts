// The entry module of decide/: what the rest of core uses from it, each name listed.

export { type AgentContext, type AgentMachineInput, initialContext, promptTokens } from "./agent-context.js";
export { isOverBudget, nextCallCost, pendingApprovals, unpricedPick } from "./agent-decisions.js";
export { type AgentSnapshot, agentMachine } from "./agent-machine.js";
export { type AgentView, isNewView, viewOf } from "./agent-view.js";
export { anchoredSnapshot, anchorStateOf, CARRIED, FROM_SETTINGS, NOT_CARRIED } from "./anchor-state.js";
export { CallBatch, type CallState } from "./call-batch.js";
export { canonicalJson } from "./call-key.js";
export { type ChildShare, childShare, costLeft, type Reserved, tokensLeft } from "./child-budget.js";
export { childPending, childQuestions } from "./child-pauses.js";
export {
  compactionBoundary,
  compactionRequest,
  isSummaryOverBudget,
  recordCompaction,
  shownMessages,
} from "./compaction.js";
export { pricedModels, UNNAMED_MODEL, unpricedNames } from "./cost.js";
export { isGivingUp } from "./model-retry.js";
export { pendingRequests, type SettledSnapshot } from "./pending-requests.js";
export { pendingQuestions } from "./questions.js";
export { isAskingCall } from "./tool-asks.js";
