// The entry module of log/: the other parts of core import it from here.

export * from "./blobs.js";
export * from "./event-log.js";
export * from "./event-log-error.js";
export * from "./event-store.js";
export * from "./journal.js";
export * from "./log-hash.js";
export * from "./log-stamps.js";
export * from "./replay.js";
export * from "./run-fold.js";
export * from "./run-position.js";
export * from "./sha256.js";
export * from "./shown-at-step.js";
