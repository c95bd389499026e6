import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import * as clients from "@restatedev/restate-sdk-clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentHandlers, DEMO_TASK } from "../src/index.js";
import { freePort, type RestateServer, startRestateServer } from "../src/testing/index.js";
import { waitUntil } from "../src/testing/wait-until.js";

const BIN = fileURLToPath(new URL("../dist/bin/demo-service.js", import.meta.url));
const run = promisify(execFile);

describe("agentloop-restate-demo, the command that serves the demo agent", () => {
  let server: RestateServer;
  let runs: string;

  beforeAll(async () => {
    server = await startRestateServer();
    runs = mkdtempSync(join(tmpdir(), "agentloop-restate-demo-"));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(runs, { recursive: true, force: true });
  });

  it("serves and registers the demo agent; a run waits for the report's approval, then finishes", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, "--port", String(port), "--register", server.admin, "--store", runs], {
      env: { ...process.env, RESTATE_LOGGING: "ERROR" },
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    try {
      await waitUntil(() => stdout.includes("listens at"), { what: "the demo service to register" });
      expect(stdout).toContain(`the demo agent listens at http://127.0.0.1:${port}, registered with ${server.admin}`);
      expect(stdout).toContain("/agent/demo-1/run/send");

      const demo = clients.connect({ url: server.ingress }).workflowClient<AgentHandlers>({ name: "agent" }, "demo-1");
      await demo.workflowSubmit({ task: DEMO_TASK });
      const status = await waitUntil(
        async () => {
          const now = await demo.status();
          return now.phase === "awaiting_approval" ? now : null;
        },
        { what: "the report to wait for approval" },
      );
      expect(status.awaitingDecision).toEqual([
        { id: "c3", name: "email_report", args: { to: "you@example.com", text: "It is 86 F in Pune." } },
      ]);
      await demo.decide({ callId: "c3", approved: true });
      expect(await demo.workflowAttach()).toMatchObject({ status: "done", steps: 4 });
      expect((await new JsonlEventStore(runs).read("demo-1")).at(-1)?.type).toBe("run.finished");
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("prints its help, and refuses a bad port or an unreachable server with a clear message", async () => {
    const { stdout } = await run(process.execPath, [BIN, "--help"]);
    expect(stdout).toMatch(/^Usage: agentloop-restate-demo \[--port <n>\]/);
    await expect(run(process.execPath, [BIN, "--port", "http"])).rejects.toMatchObject({
      code: 2,
      stderr: "agentloop-restate-demo: --port must be a port number, got 'http'; see 'agentloop-restate-demo --help'\n",
    });
    // A usage error is one line, never a stack; a leading `--` (as pnpm 12 and npm pass it on) is no error.
    await expect(run(process.execPath, [BIN, "--prot", "9080"])).rejects.toMatchObject({
      code: 2,
      stderr: "agentloop-restate-demo: Unknown option '--prot'; see 'agentloop-restate-demo --help'\n",
    });
    await expect(run(process.execPath, [BIN, "9080"])).rejects.toMatchObject({
      code: 2,
      stderr: "agentloop-restate-demo: Unexpected argument '9080'; see 'agentloop-restate-demo --help'\n",
    });
    expect((await run(process.execPath, [BIN, "--", "--help"])).stdout).toMatch(/^Usage: agentloop-restate-demo/);
    const closed = await freePort();
    await expect(
      run(process.execPath, [BIN, "--port", "0", "--register", `http://127.0.0.1:${closed}`]),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/cannot reach the Restate admin API at http/) });
  }, 30_000);
});
