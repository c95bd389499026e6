import { defineProject } from "vitest/config";
import { hangGuard } from "../../hang-guard.js";

// A test's time limit is a guard against a hang, not a measure: its waits are for conditions, and on a
// loaded 2-core machine a test that starts servers or processes takes many times what it takes alone,
// so every limit grows with the machine's load (hang-guard.ts at the root).
// The Restate SDK logs every invocation at INFO: only its errors are worth seeing in a test run.
export default defineProject({
  test: {
    name: "restate",
    env: { RESTATE_LOGGING: "ERROR" },
    testTimeout: hangGuard(120_000),
    hookTimeout: hangGuard(120_000),
  },
});
