export { annotationOptions, type McpClient, type McpToolsOptions, mcpNameOf, mcpTools } from "./mcp-tools.js";
export { RUN_ID_META, type ServeOptions, serveAgent } from "./serve-agent.js";
export { toolNameOf } from "./tool-name.js";
export { McpToolError, resultValue } from "./tool-result.js";
