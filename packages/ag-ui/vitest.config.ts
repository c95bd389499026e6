import { defineProject } from "vitest/config";
import { hangGuard } from "../../hang-guard.js";

export default defineProject({
  test: { name: "ag-ui", testTimeout: hangGuard(60_000), hookTimeout: hangGuard(60_000) },
});
