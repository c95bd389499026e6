// Test doubles and helpers for testing an agent: `@agentloop/core/testing`.

export {
  asks,
  final,
  makeMailRegistry,
  makeWeatherRegistry,
  type ScriptedModel,
  scriptedModel,
  type ToolRun,
  toolCall,
  WEATHER_TASK,
  weatherScript,
} from "./run/index.js";
export { foreignRequests } from "./serve/foreign-requests.js";
export { cutResult, DEFAULT_MAX_RESULT_CHARS } from "./tools/index.js";
