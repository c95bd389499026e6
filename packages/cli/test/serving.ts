import { afterEach } from "vitest";
import { fixture, startCli } from "./cli.js";

const children: ReturnType<typeof startCli>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGTERM");
});

/** Starts `agentloop serve` (stopped after the test) and resolves with the URL it prints once it listens. */
export function serve(args: readonly string[]): Promise<string> {
  const child = startCli(["serve", ...args]);
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(out)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

/** `agentloop serve`'s arguments for `door` (`--ui-stream`, `--ag-ui`, ...) on a free port, with the fixture tools, a scripted model and a JSONL store. */
export function scriptedServe(door: string, script: string, store: string): string[] {
  return [door, "--port", "0", "--tools", fixture("tools.mjs"), "--script", script, "--store", store];
}
