import { defineProject } from "vitest/config";

// A test's time limit is a guard against a hang, not a measure: its waits are for conditions, and on a
// loaded 2-core machine a test that starts servers or processes takes many times what it takes alone.
// One PostgreSQL server for the whole project (test/global-setup.ts); each test file uses schemas of its own.
export default defineProject({
  test: { name: "postgres", testTimeout: 60_000, hookTimeout: 60_000, globalSetup: ["test/global-setup.ts"] },
});
