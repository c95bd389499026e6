export {
  answerShape,
  ELICITATION_ACTION_KEY,
  type ElicitationReply,
  elicitationCapabilities,
  replyOf,
} from "./elicitation.js";
export { annotationOptions, type McpClient, type McpToolsOptions, mcpNameOf, mcpTools } from "./mcp-tools.js";
export type { AgentTask, TaskStatus } from "./run-task.js";
export { RUN_ID_META, type ServeOptions, serveAgent } from "./serve-agent.js";
export { type AgentHttpHandler, serveAgentHttp } from "./serve-agent-http.js";
export { toolNameOf } from "./tool-name.js";
export { McpToolError, resultValue } from "./tool-result.js";
