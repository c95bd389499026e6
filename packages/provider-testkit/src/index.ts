export { makeWeatherRegistry, type ToolRun, WEATHER_TASK } from "@agentloop/core/testing";
export { type ConformanceOptions, type ConnectedModel, type ConnectModel, describeConformance } from "./conformance.js";
export { deltaMismatches, mismatches } from "./delta-mismatches.js";
export {
  type FakeAnswer,
  type FakeResponse,
  type FakeRoute,
  type FakeServer,
  type FakeServerOptions,
  type FakeStream,
  type RecordedRequest,
  type SseEvent,
  startFakeServer,
} from "./fake-server.js";
export { type ReasoningStyle, reasoningScenarios } from "./reasoning-scenarios.js";
export { CONFORMANCE_SCENARIOS, type ConformanceScenario, happyScript, type ScenarioLimits } from "./scenarios.js";
export { type FakeStep, scriptedRoute } from "./scripted-route.js";
export { SEARCH_PARAMETERS } from "./search.js";
export { WireChecker } from "./wire-checker.js";
