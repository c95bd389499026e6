import { join } from "node:path";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { describeQuestionCrash } from "../src/processes/index.js";

// The waiting-question crash and race tests (question-crash.ts) on the JSONL store: the children run the BUILT core.
describeQuestionCrash("JsonlEventStore", {
  childEnv: { QUESTION_STORE: "jsonl" },
  storePath: (directory) => join(directory, "runs"),
  openStore: (path) => new JsonlEventStore(path),
});
