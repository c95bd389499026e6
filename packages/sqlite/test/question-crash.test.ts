import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describeQuestionCrash } from "@agentloop/store-testkit/processes";
import { SqliteEventStore } from "../src/index.js";

// The waiting-question crash and race tests (packages/store-testkit/src/processes/question-crash.ts) on the SQLite
// store. The children load the BUILT core and the BUILT dist/index.js of this package, so build both first.

const PACKAGE = join(import.meta.dirname, "..");

describeQuestionCrash("SqliteEventStore", {
  childEnv: {
    QUESTION_STORE: "sqlite",
    QUESTION_SQLITE_MODULE: pathToFileURL(join(PACKAGE, "dist", "index.js")).href,
  },
  storePath: (directory) => join(directory, "runs.db"),
  openStore: (path) => new SqliteEventStore(path),
});
