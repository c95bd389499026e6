import { defineProject } from "vitest/config";
import { hangGuard } from "../../hang-guard.js";

export default defineProject({
  test: { name: "evals", testTimeout: hangGuard(60_000), hookTimeout: hangGuard(60_000) },
});
