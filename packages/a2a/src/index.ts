export { a2aAgentTool, type RemoteAgent } from "./a2a-agent-tool.js";
export { type A2ACard, type A2AServeOptions, a2aHandler, agentCardOf } from "./a2a-handler.js";
