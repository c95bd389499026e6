import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { hangGuard } from "@agentloop/store-testkit/servers";
import * as clients from "@restatedev/restate-sdk-clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentHandlers, DEMO_TASK } from "../src/index.js";
import { freePort, type RestateServer, startRestateServer } from "../src/testing/index.js";
import { waitUntil } from "../src/testing/wait-until.js";

const BIN = fileURLToPath(new URL("../dist/bin/demo-service.js", import.meta.url));
const run = promisify(execFile);
const sh = (command: string) => run("sh", ["-c", command]);

describe("agentloop-restate-demo, the command that serves the demo agent", () => {
  let server: RestateServer;
  let runs: string;

  beforeAll(async () => {
    server = await startRestateServer();
    runs = mkdtempSync(join(tmpdir(), "agentloop-restate-demo-"));
  }, hangGuard(60_000));

  afterAll(async () => {
    await server?.stop();
    rmSync(runs, { recursive: true, force: true });
  });

  it("serves and registers the demo agent; a run waits for the report's approval, then finishes", async () => {
    // Port 0: the service binds a port of the kernel's choosing and prints it.
    const child = spawn(process.execPath, [BIN, "--port", "0", "--register", server.admin, "--store", runs], {
      env: { ...process.env, RESTATE_LOGGING: "ERROR" },
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    try {
      await waitUntil(() => stdout.includes("listens at"), {
        what: `the demo service to register with ${server.admin}`,
        failIf: () => exitedWith(child),
      });
      expect(stdout).toMatch(
        new RegExp(`the demo agent listens at http://127\\.0\\.0\\.1:[1-9]\\d*, registered with ${server.admin}`),
      );
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
  });
});

/** The guide's `curl` block (its chapter on Restate), one command a line: as written, but for the ports of this test's server. */
function guideRequests(ingress: string, admin: string, service: string): string[] {
  const guide = readFileSync(
    fileURLToPath(new URL("../../../docs/guide/when-one-process-is-not-enough.md", import.meta.url)),
    "utf8",
  );
  return [...guide.matchAll(/^```sh\n([\s\S]*?)^```/gm)]
    .flatMap((block) => (block[1] ?? "").replace(/\\\n\s*/g, "").split("\n"))
    .map((line) => line.replace(/\s+#[^']*$/, "").trim())
    .filter((line) => line.startsWith("curl "))
    .map((line) =>
      line
        .replaceAll("localhost:8080", new URL(ingress).host)
        .replaceAll("localhost:9070", new URL(admin).host)
        .replaceAll("http://127.0.0.1:9080", service),
    );
}

describe("the guide's curl commands, against a real Restate server", () => {
  let server: RestateServer;
  beforeAll(async () => {
    server = await startRestateServer();
  }, hangGuard(60_000));
  afterAll(async () => {
    await server?.stop();
  });

  it(
    "register the demo, submit, read the status, approve, cancel, read the events and the result",
    async () => {
      const child = spawn(process.execPath, [BIN, "--port", "0"], {
        env: { ...process.env, RESTATE_LOGGING: "ERROR" },
      });
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      const curl = async (command: string) => JSON.parse((await sh(command)).stdout || "null") as unknown;
      try {
        const service = await waitUntil(() => /listens at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1], {
          what: "the demo service to listen on a port of its own",
          failIf: () => exitedWith(child),
        });
        const [register, send, status, decide, cancel, events, attach] = guideRequests(
          server.ingress,
          server.admin,
          service,
        );
        expect(attach).toMatch(/\/restate\/workflow\/agent\/run-1\/attach$/);
        expect(await curl(register ?? "")).toHaveProperty("services");
        expect(await curl(send ?? "")).toHaveProperty("invocationId");
        await waitUntil(async () => ((await curl(status ?? "")) as { phase?: string }).phase === "awaiting_approval", {
          what: "the report to wait for approval",
        });
        await curl(decide ?? "");
        await curl(cancel ?? "");
        const result = (await curl(attach ?? "")) as { status: string };
        // The cancel may come before or after the run finished: either way the run ended once.
        expect(["done", "cancelled"]).toContain(result.status);
        const logged = (await curl(events ?? "")) as { type: string }[];
        expect(logged[0]?.type).toBe("run.started");
        expect(logged.at(-1)?.type).toBe("run.finished");
      } finally {
        child.kill("SIGTERM");
      }
    },
    hangGuard(60_000),
  );
});

/** Why waiting for `child` is pointless: it exited (with what it said on stderr), or `null` while it runs. */
function exitedWith(child: ChildProcess): string | null {
  if (child.exitCode === null && child.signalCode === null) return null;
  return `it exited with ${child.exitCode ?? child.signalCode}`;
}
