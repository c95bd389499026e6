import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { JsonlEventStore } from "../src/stores/jsonl-store.js";
import { newLockRecord } from "../src/stores/lock-file.js";
import { describeLockProcesses } from "./lock-suite.js";

// The lock tests with real processes (lock-suite.ts) on the JSONL store: the child runs the BUILT core.
describeLockProcesses("JsonlEventStore", {
  childEnv: { LOCK_STORE: "jsonl" },
  storePath: (directory) => join(directory, "runs"),
  openStore: (path) => new JsonlEventStore(path, { durability: "none" }),
  plantStaleLock(path, runId, pid) {
    const owner = { ...newLockRecord(), pid };
    writeFileSync(join(path, `${runId}.jsonl.lock`), JSON.stringify(owner));
  },
});
