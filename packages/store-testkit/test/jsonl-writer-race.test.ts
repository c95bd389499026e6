import { join } from "node:path";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { describeWriterRace } from "../src/processes/index.js";

// The two-process resume race (writer-race.ts) on the JSONL store: the children run the BUILT core.
describeWriterRace("JsonlEventStore", {
  childEnv: { RACE_STORE: "jsonl" },
  storePath: (directory) => join(directory, "runs"),
  openStore: (path) => new JsonlEventStore(path),
});
