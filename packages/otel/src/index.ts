export { type AgentTelemetry, agentTelemetry } from "./agent-telemetry.js";
export { GENAI_SCHEMA_URL } from "./semconv.js";
export type { ChildLog } from "./spans-from-log.js";
export type { TelemetryOptions } from "./telemetry-options.js";
