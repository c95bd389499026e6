import type { ChildProcess } from "node:child_process";
import { afterAll } from "vitest";
import { startCli } from "./cli.js";

/** A studio started as a child process: its printed URL, its address, its token. */
export interface Studio {
  readonly url: string;
  readonly base: string;
  readonly token: string;
  readonly child: ChildProcess;
  /** GET with the token's cookie. */
  get(path: string): Promise<Response>;
  /** POST JSON with the token's header. */
  post(path: string, body: unknown): Promise<Response>;
}

const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started.splice(0)) child.kill("SIGTERM");
});

/** Starts `agentloop studio --port 0 ...args` and resolves once it printed its URL. */
export function startStudio(args: readonly string[]): Promise<Studio> {
  const child = startCli(["studio", "--port", "0", ...args]);
  started.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("close", (code) => reject(new Error(`studio exited with ${code}: ${err}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /agentloop studio: (http:\/\/\S+\/\?token=(\S+))/.exec(out);
      if (match?.[1] === undefined || match[2] === undefined) return;
      const url = match[1];
      const token = match[2];
      const base = url.slice(0, url.indexOf("/?token="));
      resolve({
        url,
        base,
        token,
        child,
        get: (path) => fetch(base + path, { headers: { cookie: `agentloop_studio=${token}` } }),
        post: (path, body) =>
          fetch(base + path, {
            method: "POST",
            headers: { "content-type": "application/json", "x-agentloop-token": token },
            body: JSON.stringify(body),
          }),
      });
    });
  });
}
