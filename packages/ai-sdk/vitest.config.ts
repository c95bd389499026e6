import { defineProject } from "vitest/config";
import { hangGuard } from "../../hang-guard.js";

// Tests wait for conditions, never for time; the budget is only there to end a hang, on a machine that may be loaded.
export default defineProject({
  test: { name: "ai-sdk", testTimeout: hangGuard(60_000), hookTimeout: hangGuard(60_000) },
});
