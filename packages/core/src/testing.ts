// Test doubles and helpers for testing an agent: `@agentloop/core/testing`.

export { foreignRequests } from "./serve/foreign-requests.js";
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
} from "./testing/index.js";
export { cutResult, DEFAULT_MAX_RESULT_CHARS } from "./tools/index.js";
