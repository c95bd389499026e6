import { defineProject } from "vitest/config";
import { hangGuard } from "../../hang-guard.js";

// A test's time limit is a guard against a hang, not a measure: its waits are for conditions, and on a
// loaded 2-core machine a test that starts servers or processes takes many times what it takes alone,
// so every limit grows with the machine's load (hang-guard.ts at the root).
export default defineProject({
  test: { name: "openai", testTimeout: hangGuard(60_000), hookTimeout: hangGuard(60_000) },
});
