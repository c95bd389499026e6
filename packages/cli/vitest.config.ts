import { defineProject } from "vitest/config";

// The tests run the built CLI (and Chromium) as child processes: give them time on a busy machine.
export default defineProject({ test: { name: "cli", testTimeout: 30_000, hookTimeout: 30_000 } });
