// The entry module of tools/: what the rest of core uses from it, each name listed.

export { type AskUserToolDefinition, askToolsOf, askUserTool } from "./ask-user-tool.js";
export { cutResult, DEFAULT_MAX_RESULT_CHARS, isCharLimit } from "./cut-result.js";
export { isTimeout, MAX_TIMER_MS, runGuarded } from "./run-guarded.js";
export { describeSafely } from "./safe-observation.js";
export { type ArgsOf, type CompiledParameters, compileParameters, type ToolSchema } from "./schema/index.js";
export { PERFORMER, type Tool, type ToolDefinition, tool } from "./tool.js";
export type { ToolAsk, ToolContext, ToolFunction, ToolNote } from "./tool-function.js";
export type { ToolOptions } from "./tool-options.js";
export { type ExecuteOptions, ToolRegistry } from "./tool-registry.js";
