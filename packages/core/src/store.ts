// What a store needs, and the log format's vocabulary: `@agentloop/core/store`.
export { chainTip, parseEventLog, stampEvent } from "./event-log.js";
export {
  checkAppend,
  type EventStore,
  MemoryEventStore,
  type RunLock,
  type RunSummary,
  readIntact,
  summarize,
} from "./event-store.js";
export {
  EVENT_LOG_SCHEMA_VERSION,
  type LifecycleEvent,
  RUN_EVENT_TYPES,
  type RunEvent,
  type RunOutcome,
  type RunSettings,
  type StoredEvent,
} from "./events.js";
export {
  isErrorResult,
  LOG_FLAGS,
  type LogFlag,
  type LogFlags,
  logFlags,
  OLDEST_EVENT_LOG_SCHEMA_VERSION,
} from "./log-flags.js";
export { chainHash, runHashSeed } from "./log-hash.js";
export { LogStamps } from "./log-stamps.js";
export { END_STATUSES, type EndStatus } from "./types.js";
