import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "evals", testTimeout: 60_000, hookTimeout: 60_000 } });
