import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";

/** What a child process printed (stdout and stderr apart) and its exit code. */
export interface ChildOutput {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Collects a child's output until it closes; rejects when it cannot be started. */
export function outputOf(child: ChildProcessByStdio<null, Readable, Readable>): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
