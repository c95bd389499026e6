import { defineProject } from "vitest/config";
import { hangGuard } from "../../hang-guard.js";

// Packing and a plain npm install take tens of seconds on a busy machine.
export default defineProject({
  test: { name: "packaging", testTimeout: hangGuard(240_000), hookTimeout: hangGuard(240_000) },
});
