// The entry module of data/: the other parts of core import it from here.

export * from "./agent-input.js";
export * from "./arg-path.js";
export * from "./assign-call-ids.js";
export * from "./chained-id.js";
export * from "./check-reply.js";
export * from "./compacted-view.js";
export * from "./content-part.js";
export * from "./count-tokens.js";
export * from "./errors.js";
export * from "./events.js";
export * from "./frozen-json.js";
export * from "./guardrail.js";
export * from "./history.js";
export * from "./is-plain-object.js";
export * from "./json-value.js";
export * from "./log-flags.js";
export * from "./model-stream.js";
export * from "./part-tokens.js";
export * from "./provider-error.js";
export * from "./run-end.js";
export * from "./sdk-failure.js";
export * from "./sdk-request-options.js";
export * from "./tool-outcome.js";
export * from "./transcript.js";
export * from "./types.js";
