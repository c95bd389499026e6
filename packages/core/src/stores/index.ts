// The entry module of stores/: the other parts of core import it from here.

export * from "./jsonl-lines.js";
export * from "./jsonl-scan.js";
export * from "./jsonl-store.js";
export * from "./line-appender.js";
export * from "./lock-file.js";
