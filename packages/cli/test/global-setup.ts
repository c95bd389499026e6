import { startTestPostgres } from "@agentloop/store-testkit/servers";
import type { TestProject } from "vitest/node";
import { isSlowProject } from "../../../test-kinds.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The connection string of the project's PostgreSQL server. */
    postgresUrl: string;
  }
}

/** Starts the project's PostgreSQL (or takes the one AGENTLOOP_TEST_POSTGRES names) once, and stops it after the last file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The package's quick project (`pnpm test:quick`, test-kinds.ts at the root) starts nothing.
  if (!isSlowProject(project.name)) return async () => {};
  const server = await startTestPostgres();
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}
