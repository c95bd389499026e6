// The machinery under `runAgent`, for embedding the machine, driving it yourself, or building on
// its pieces: `@agentloop/core/machine`.
export type { AgentContext, AgentMachineInput } from "./agent-context.js";
export { type AgentSnapshot, agentMachine, pendingRequests } from "./agent-machine.js";
export { CallBatch, type CallState } from "./call-batch.js";
export { type AgentEvent, type AgentRequest, type RunSettings, toolFinished } from "./events.js";
export { Journal } from "./journal.js";
export { foldEvents, outcomeOf, type Replay, type ReplayOptions } from "./replay.js";
export { checkRunOptions, type LiveRun, runLive } from "./run-agent.js";
export {
  type AgentActor,
  DEFAULT_TOOL_TIMEOUT_MS,
  driveEffects,
  type EffectPorts,
  lostResult,
  mayRunAgain,
  type Resumption,
} from "./run-effects.js";
export { RunFold, type RunFoldOptions } from "./run-fold.js";
export { positionOf, type RunPosition } from "./run-position.js";
export {
  type AgentOptions,
  DEFAULT_MAX_STEPS,
  DEFAULT_REPEAT_LIMIT,
  DEFAULT_SYSTEM,
  DEFAULT_TOKEN_BUDGET,
  type ModelWithLimits,
  resolveSettings,
} from "./settings.js";
export { listView, messagesOf, type Transcript } from "./transcript.js";
