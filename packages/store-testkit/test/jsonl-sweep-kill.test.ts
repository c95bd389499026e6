import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { describeSweepKill } from "../src/processes/index.js";

// The sweep test (sweep-kill.ts) on the JSONL store: the services run the BUILT core, so build first.
describeSweepKill("JsonlEventStore", {
  storeModule: pathToFileURL(join(import.meta.dirname, "..", "fixtures", "stores", "jsonl-store.mjs")).href,
  location: (scratch) => join(scratch, "store"),
  openStore: (location) => new JsonlEventStore(location),
});
