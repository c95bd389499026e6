export { a2aAgentTool, type RemoteAgent } from "./a2a-agent-tool.js";
