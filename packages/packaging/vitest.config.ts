import { defineProject } from "vitest/config";

// Packing and a plain npm install take tens of seconds on a busy machine.
export default defineProject({ test: { name: "packaging", testTimeout: 240_000, hookTimeout: 240_000 } });
