import { expect, it, vi } from "vitest";

it("the README example runs: a run kept in SQLite, listed, then resumed as it was", async () => {
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  await import("../examples/quick-start.js");
  const [status, runs] = log.mock.calls[0] ?? [];
  expect(status).toBe("done");
  expect(runs).toEqual([
    expect.objectContaining({ runId: "hello-1", events: 3, outcome: expect.objectContaining({ status: "done" }) }),
  ]);
  log.mockRestore();
});
