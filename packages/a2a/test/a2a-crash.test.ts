import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { AgentEvent } from "@a2a-js/sdk/server";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { afterAll, describe, expect, it } from "vitest";
import { startA2AServer, statusOf, taskOf } from "./a2a-server.js";

// kill -9 while the remote task runs: fixtures/a2a-crash-child.mjs (on the BUILT packages) sends
// its task to the SDK's own server in this process and dies by SIGKILL right after it logged the
// remote task's id, the task still working. A new process resumes the run: it follows the same
// task (GetTask) and the remote agent sees one message.

const CHILD = join(import.meta.dirname, "fixtures", "a2a-crash-child.mjs");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function spawnChild(mode: "run" | "resume", dir: string, url: string) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => {
      const child = spawn(process.execPath, [CHILD, mode, dir, url], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
    },
  );
}

describe("kill -9 while a remote A2A task runs (JSONL store, real processes)", () => {
  it("resumes by following the same remote task: the remote agent sees one message", async () => {
    expect(existsSync(join(import.meta.dirname, "..", "dist", "index.js")), "build @agentloop/a2a first").toBe(true);
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await startA2AServer(async (context, bus) => {
      bus.publish(AgentEvent.task(taskOf(context, TaskState.TASK_STATE_WORKING)));
      await released;
      bus.publish(
        AgentEvent.statusUpdate({
          taskId: context.taskId,
          contextId: context.contextId,
          status: statusOf(context, TaskState.TASK_STATE_COMPLETED, "Order 7 is refunded."),
          metadata: undefined,
        }),
      );
      bus.finished();
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), "a2a-crash-"));
      dirs.push(dir);
      const killed = await spawnChild("run", dir, server.url);
      expect(killed.signal, killed.stderr).toBe("SIGKILL");
      expect(server.received).toHaveLength(1);
      const log = await new JsonlEventStore(dir).read("p");
      expect(log.at(-1)).toMatchObject({ type: "tool.noted" });
      release();
      const resumed = await spawnChild("resume", dir, server.url);
      expect(resumed.code, resumed.stderr).toBe(0);
      const result = JSON.parse(resumed.stdout) as { status: string; messages: { content: unknown }[] };
      expect(result.status).toBe("done");
      expect(result.messages[3]?.content).toBe('"Order 7 is refunded."');
      expect(server.received).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
