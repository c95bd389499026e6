export { annotationOptions, type McpClient, type McpToolsOptions, mcpNameOf, mcpTools } from "./mcp-tools.js";
export { toolNameOf } from "./tool-name.js";
export { McpToolError, resultValue } from "./tool-result.js";
