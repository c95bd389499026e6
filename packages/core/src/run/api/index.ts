// The entry module of run/api/: what the other rooms and run/ use from it, each name listed.

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
export { type AgentToolDefinition, agentTool } from "./agent-tool.js";
export {
  type ContinueOptions,
  continueAgent,
  type ForkOptions,
  forkRun,
  type ResumeOptions,
  resumeAgent,
} from "./resume.js";
export {
  resumeUnfinished,
  type SweepResult,
  type SweepSettings,
  type UnfinishedRuns,
} from "./resume-unfinished.js";
export {
  checkChildPrices,
  checkRunOptions,
  type LiveRun,
  pausedResult,
  type RunOptions,
  runAgent,
  runLive,
} from "./run-agent.js";
export { type AgentStream, streamAgent } from "./stream-agent.js";
