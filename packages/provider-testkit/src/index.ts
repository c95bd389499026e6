export { type ConnectedModel, type ConnectModel, describeConformance } from "./conformance.js";
export {
  type FakeResponse,
  type FakeRoute,
  type FakeServer,
  type FakeServerOptions,
  type RecordedRequest,
  startFakeServer,
} from "./fake-server.js";
export { CONFORMANCE_SCENARIOS, type ConformanceScenario, happyScript, type ScenarioLimits } from "./scenarios.js";
export { type FakeStep, scriptedRoute } from "./scripted-route.js";
export { makeWeatherRegistry, type ToolRun, WEATHER_TASK } from "./weather.js";
export { WireChecker } from "./wire-checker.js";
