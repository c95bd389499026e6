import { defineProject } from "vitest/config";

// The Restate SDK logs every invocation at INFO: only its errors are worth seeing in a test run.
export default defineProject({ test: { name: "restate", env: { RESTATE_LOGGING: "ERROR" } } });
