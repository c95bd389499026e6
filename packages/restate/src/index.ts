// First, before the Restate SDK: Node 20 lacks Promise.withResolvers, which the SDK uses.
import "./polyfill.js";

export { type AgentHandlers, type AgentWorkflow, type AgentWorkflowOptions, agentWorkflow } from "./agent-workflow.js";
export {
  type DemoService,
  type DemoServiceOptions,
  registerDeployment,
  startDemoService,
} from "./demo/demo-service.js";
export { DEMO_SCRIPT, DEMO_TASK, demoTools, demoWorkflow } from "./demo/weather-agent.js";
export type { StepRetry } from "./journaled-steps.js";
export { stepScriptedModel } from "./step-scripted-model.js";
export type { AnswerRequest, CancelRequest, DecideRequest, RunRequest, RunStatus } from "./types.js";
