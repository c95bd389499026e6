import { expect, it, onTestFinished, vi } from "vitest";
import { dropSchema, POSTGRES_URL } from "./schemas.js";

it("the README example runs: a run kept in Postgres, listed, then resumed as it was by another store object", async () => {
  vi.stubEnv("DATABASE_URL", POSTGRES_URL);
  onTestFinished(async () => {
    vi.unstubAllEnvs();
    await dropSchema("agent_runs");
  });
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  await import("../examples/quick-start.js");
  const [status, runs] = log.mock.calls[0] ?? [];
  expect(status).toBe("done");
  expect(runs).toEqual([
    expect.objectContaining({ runId: "hello-1", events: 3, outcome: expect.objectContaining({ status: "done" }) }),
  ]);
  expect(log.mock.calls[1]).toEqual(["done"]);
  log.mockRestore();
});
