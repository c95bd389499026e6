// Servers for tests: `@agentloop/store-testkit/servers`. Nothing here imports vitest.

export { freePort } from "./free-port.js";
export { startTestPostgres, type TestPostgres } from "./test-postgres.js";
