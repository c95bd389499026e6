// The entry module of testing/: the test doubles and fixtures behind `@agentloop/core/testing`
// (the scripted model and its replies, the weather and mail registries), each name listed.

export { makeMailRegistry } from "./mail-fixture.js";
export { asks, final, type ScriptedModel, scriptedModel, toolCall } from "./scripted-model.js";
export { makeWeatherRegistry, type ToolRun, WEATHER_TASK, weatherScript } from "./weather-fixture.js";
