// Test doubles and helpers for testing an agent: `@agentloop/core/testing`.

export { cutResult, DEFAULT_MAX_RESULT_CHARS } from "./cut-result.js";
export { makeMailRegistry } from "./mail-fixture.js";
export { asks, final, type ScriptedModel, scriptedModel, toolCall } from "./scripted-model.js";
export { makeWeatherRegistry, type ToolRun, WEATHER_TASK, weatherScript } from "./weather-fixture.js";
