import { defineProject } from "vitest/config";
import { hangGuard } from "../../hang-guard.js";

// The tests run the built CLI (and Chromium) as child processes: a test's time limit guards against a hang;
// its waits are for conditions, and a loaded 2-core machine takes many times what they take alone.
// One PostgreSQL server for the project (test/global-setup.ts), for the --store postgres://… tests.
export default defineProject({
  test: {
    name: "cli",
    testTimeout: hangGuard(60_000),
    hookTimeout: hangGuard(60_000),
    globalSetup: ["test/global-setup.ts"],
  },
});
