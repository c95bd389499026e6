// The entry module of run/options/: the options a run is given and the settings they resolve to
// (limits, pricing, retry, memory, the handoffs' profiles), what the rooms above use, each name listed.

export { pricedModels, unpricedNames } from "../../decide/index.js";
export { continuedMemoryStore, type MemoryOptions, memoryStoreFor } from "./memory-options.js";
export { checkPricing, costBudgetRefusal, resolvePrices } from "./pricing.js";
export {
  type AgentOptions,
  type CompactionOptions,
  DEFAULT_KEEP_RECENT,
  DEFAULT_MAX_STEPS,
  DEFAULT_REPEAT_LIMIT,
  DEFAULT_TOKEN_BUDGET,
  describe,
  type ModelWithLimits,
  resolveLimits,
  resolveSettings,
} from "./settings.js";
