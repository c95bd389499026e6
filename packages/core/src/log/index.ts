// The entry module of log/: what the rest of core uses from it, each name listed.

export { commitAppendGroup, type WaitingAppend } from "./append-group.js";
export {
  type BlobRef,
  type BlobSource,
  blobRefsOf,
  isBlobRef,
  type LoggedEvent,
  loggedEvent,
  type Restored,
  restoreBlobs,
} from "./blobs.js";
export { chainTip, parseEventLog, type StoredEvent, stampEvent } from "./event-log.js";
export { EventLogError } from "./event-log-error.js";
export {
  checkAppend,
  checkPrune,
  type EventStore,
  holding,
  lastBrokenRow,
  MemoryEventStore,
  type RunLock,
  type RunSummary,
  readIntact,
  summarize,
} from "./event-store.js";
export { InMemoryMemoryStore } from "./in-memory-memory-store.js";
export { Journal } from "./journal.js";
export { chainHash, runHashSeed } from "./log-hash.js";
export { LogStamps } from "./log-stamps.js";
export { type MemoryRecall, type RunRecalling, recallsOf, runsRecalling } from "./memory-recalls.js";
export { foldEvents, type Replay, type ReplayOptions, replayRun } from "./replay.js";
export { type RetentionPolicy, retain } from "./retain.js";
export { anchorOf, startedOf } from "./run-anchor.js";
export { type FoldMicrostep, outcomeOf, RunFold, type RunFoldOptions } from "./run-fold.js";
export { positionOf, type RunPosition } from "./run-position.js";
export { isSha256, sha256Hex } from "./sha256.js";
export { shownAtStep } from "./shown-at-step.js";
export {
  checkSpendLimits,
  MemorySpendLedger,
  passedLimit,
  type SpendHold,
  type SpendLedger,
  type SpendLimits,
  type SpendTotals,
  type SpendWindows,
  spendWindows,
  type TotalsKeeper,
  type TotalsStep,
  WindowSpendLedger,
  type WindowTotals,
} from "./spend-ledger.js";
