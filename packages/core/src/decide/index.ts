// The entry module of decide/: the other parts of core import it from here.

export * from "./agent-context.js";
export * from "./agent-decisions.js";
export * from "./agent-machine.js";
export * from "./agent-view.js";
export * from "./call-batch.js";
export * from "./call-key.js";
export * from "./child-budget.js";
export * from "./child-pauses.js";
export * from "./compaction.js";
export * from "./compaction-state.js";
export * from "./cost.js";
export * from "./guardrail-decisions.js";
export * from "./model-retry.js";
export * from "./output-decisions.js";
export * from "./questions.js";
export * from "./step-preparation.js";
export * from "./tool-asks.js";
