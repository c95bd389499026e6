// First, before the Restate SDK: Node 20 lacks Promise.withResolvers, which the SDK uses.
import "./polyfill.js";

export { type AgentHandlers, type AgentWorkflow, type AgentWorkflowOptions, agentWorkflow } from "./agent-workflow.js";
export type { StepRetry } from "./effect-steps.js";
export type { CancelRequest, DecideRequest, RunRequest, RunStatus } from "./types.js";
