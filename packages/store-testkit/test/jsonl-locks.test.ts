import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { newLockRecord } from "@agentloop/core/lock-file";
import { describeLockProcesses } from "../src/processes/index.js";

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
