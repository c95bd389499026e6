import { join } from "node:path";
import { JsonlEventStore } from "../src/stores/jsonl-store.js";
import { describeWriterRace } from "./writer-race.js";

// The two-process resume race (writer-race.ts) on the JSONL store: the children run the BUILT core.
describeWriterRace("JsonlEventStore", {
  childEnv: { RACE_STORE: "jsonl" },
  storePath: (directory) => join(directory, "runs"),
  openStore: (path) => new JsonlEventStore(path),
});
