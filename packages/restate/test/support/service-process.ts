import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { waitUntil } from "../../src/testing/wait-until.js";

const SERVICE = fileURLToPath(new URL("../fixtures/agent-service.mjs", import.meta.url));

/** A service process running `fixtures/agent-service.mjs` (the built package). */
export interface ServiceProcess {
  readonly pid: number;
  readonly port: number;
  /** SIGKILLs it and waits until it is gone. */
  kill(): Promise<void>;
  /** What it wrote to stderr, for failure messages. */
  stderr(): string;
  /** Why it is gone (`exited with 1`, `killed by SIGKILL`), or `null` while it runs. */
  gone(): string | null;
}

/** Starts the service on `port` with `env` on top of this process's environment; resolves once it listens. */
export async function startService(port: number, env: Record<string, string>): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, [SERVICE], {
    env: { ...process.env, RESTATE_LOGGING: "ERROR", ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await waitUntil(() => stdout.includes("listening"), {
    what: `the service on port ${port} to listen`,
    failIf: () => (child.exitCode === null ? null : `it exited with ${child.exitCode}: ${stderr}`),
  });
  return {
    pid: child.pid ?? 0,
    port,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    stderr: () => stderr,
    gone: () => {
      if (child.signalCode !== null) return `killed by ${child.signalCode}`;
      return child.exitCode === null ? null : `exited with ${child.exitCode}`;
    },
  };
}
