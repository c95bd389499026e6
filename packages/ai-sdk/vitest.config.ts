import { defineProject } from "vitest/config";

// Tests wait for conditions, never for time; the budget is only there to end a hang, on a machine that may be loaded.
export default defineProject({ test: { name: "ai-sdk", testTimeout: 60_000, hookTimeout: 60_000 } });
