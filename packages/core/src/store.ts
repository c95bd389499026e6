// What a store needs, and the log format's vocabulary: `@agentloop/core/store`.

export {
  END_STATUSES,
  type EndStatus,
  EVENT_LOG_SCHEMA_VERSION,
  isErrorResult,
  type LifecycleEvent,
  LOG_FLAGS,
  type LogFlag,
  type LogFlags,
  logFlags,
  OLDEST_EVENT_LOG_SCHEMA_VERSION,
  RUN_EVENT_TYPES,
  type RunEvent,
  type RunOutcome,
  type RunSettings,
  type StoredEvent,
} from "./data/index.js";
export {
  chainHash,
  chainTip,
  checkAppend,
  type EventStore,
  LogStamps,
  MemoryEventStore,
  parseEventLog,
  type RunLock,
  type RunSummary,
  readIntact,
  runHashSeed,
  stampEvent,
  summarize,
} from "./log/index.js";
