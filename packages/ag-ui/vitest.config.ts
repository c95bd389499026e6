import { defineProject } from "vitest/config";

export default defineProject({ test: { name: "ag-ui", testTimeout: 60_000, hookTimeout: 60_000 } });
