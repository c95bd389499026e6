// The store contract as a vitest suite, for anyone who writes an `EventStore`: `@agentloop/store-testkit`.
export { type BlobHarness, type BlobHooks, describeBlobContract, sampleImage } from "./blob-contract.js";
export {
  describeMemoryStore,
  letterEmbedder,
  MEMORY_FACTS,
  type MemoryHarness,
  type OpenMemoryStore,
} from "./memory-contract.js";
export { describePruneContract, type PruneHarness } from "./prune-contract.js";
export { describeSpendLedger, type SpendHarness } from "./spend-contract.js";
export {
  type DurableHarness,
  describeDurableStore,
  describeEventStore,
  logError,
  type RepairableStore,
  type StoreHarness,
  sampleLog,
  stamp,
} from "./store-contract.js";
