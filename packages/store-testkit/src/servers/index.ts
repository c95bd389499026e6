// Servers for tests: `@agentloop/store-testkit/servers`. Nothing here imports vitest.

export { hangGuard } from "../hang-guard.js";
export { type Balancer, type BalancerSettings, type HandedRequest, startBalancer } from "./balancer.js";
export { freePort } from "./free-port.js";
export { startTestPostgres, type TestPostgres } from "./test-postgres.js";
