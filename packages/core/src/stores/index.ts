// The entry module of stores/: what the rest of core uses from it, each name listed.

export { JsonlEventStore } from "./jsonl-store.js";
