// Test time limits for every package's tests and vitest configs, those that do not depend on
// @agentloop/store-testkit included (core's tests cannot: the testkit depends on core).
export { hangGuard } from "./packages/store-testkit/src/hang-guard.js";
