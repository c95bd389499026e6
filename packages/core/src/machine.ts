// The machinery under `runAgent`, for embedding the machine, driving it yourself, or building on
// its pieces: `@agentloop/core/machine`.

export {
  type AgentEvent,
  type AgentProfile,
  type AgentRequest,
  type HandoffEvent,
  type HandoffSettings,
  listView,
  messagesOf,
  pairedCalls,
  type RunSettings,
  summaryMessage,
  type Transcript,
  toolFinished,
} from "./data/index.js";
export type { AgentContext, AgentMachineInput } from "./decide/index.js";
export {
  type AgentSnapshot,
  agentMachine,
  CallBatch,
  type CallState,
  pendingRequests,
  shownMessages,
} from "./decide/index.js";
export {
  type FoldMicrostep,
  foldEvents,
  Journal,
  outcomeOf,
  positionOf,
  type Replay,
  type ReplayOptions,
  RunFold,
  type RunFoldOptions,
  type RunPosition,
  shownAtStep,
} from "./log/index.js";
export {
  type AgentActor,
  type AgentOptions,
  type CompactionOptions,
  checkRunOptions,
  DEFAULT_KEEP_RECENT,
  DEFAULT_MAX_STEPS,
  DEFAULT_REPEAT_LIMIT,
  DEFAULT_SYSTEM,
  DEFAULT_TOKEN_BUDGET,
  DEFAULT_TOOL_TIMEOUT_MS,
  driveEffects,
  type EffectPorts,
  type LiveRun,
  lostResult,
  type ModelWithLimits,
  mayRunAgain,
  type Resumption,
  resolveSettings,
  resolveTurn,
  runLive,
  type TurnOptions,
} from "./run/index.js";
