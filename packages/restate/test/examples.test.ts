import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../examples/agent-service.js";
import { submitAndDecide } from "../examples/submit-and-decide.js";
import { type RestateServer, startRestateServer } from "../src/testing/index.js";

// The samples of the README and the guide (they import the BUILT package by its name).
describe("the examples run against a real Restate server", () => {
  let server: RestateServer;
  let runs: string;
  let close = async () => {};

  beforeAll(async () => {
    server = await startRestateServer();
    runs = mkdtempSync(join(tmpdir(), "agentloop-restate-runs-"));
    const service = await serve(runs, 0);
    close = () => new Promise((resolve) => service.close(() => resolve()));
    const address = service.address();
    await server.register(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`);
  }, hangGuard(60_000));

  afterAll(async () => {
    await server?.stop();
    await close();
    rmSync(runs, { recursive: true, force: true });
  });

  it("serves the agent, submits a run, decides on the report, and replays the log to the result", async () => {
    const result = await submitAndDecide(server.ingress, "example-1");
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune. I emailed you the report." });
    const mirrored = await new JsonlEventStore(runs).read("example-1");
    expect(mirrored.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "done", steps: 4 } });
  });
});
