import { fileURLToPath } from "node:url";
import { type AgentResult, contentText } from "@agentloop/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, fixture, tempDir } from "../cli.js";
// The CLI's MCP test server, written with the official SDK: run as a child over stdio, or served over HTTP here.
import { startHttpServer } from "../fixtures/mcp-server.mjs";

const serverFile = fileURLToPath(new URL("../fixtures/mcp-server.mjs", import.meta.url));
const stdioCommand = `"${process.execPath}" "${serverFile}"`;
let http: Awaited<ReturnType<typeof startHttpServer>>;
beforeAll(async () => {
  http = await startHttpServer();
});
afterAll(() => http.close());

function observations(result: AgentResult): string[] {
  return result.messages.flatMap((message) => (message.role === "tool" ? [contentText(message.content)] : []));
}

describe("agentloop run with MCP servers", () => {
  it.each([
    ["--mcp", () => ["--mcp", stdioCommand]],
    ["--mcp-url", () => ["--mcp-url", http.url]],
  ])("%s: the run uses the server's tools, and its schema refuses a bad call", async (_flag, server) => {
    const run = await cli(
      ["run", ...server(), "--script", fixture("mcp-script.json"), "--store", "runs", "--json", "How hot is Pune?"],
      { cwd: tempDir() },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as AgentResult;
    expect(result).toMatchObject({ status: "done", answer: "It is 30 °C in Pune.", steps: 3 });
    expect(observations(result)).toEqual([
      JSON.stringify(JSON.stringify({ city: "Pune", celsius: 30 })),
      expect.stringMatching(/^ERROR: argument 'b' must be of type number \(got "1"\)/),
    ]);
  });

  it("resume takes the same servers: a finished run comes back as it was, and other tools are refused", async () => {
    const cwd = tempDir();
    const run = await cli(
      ["run", "--mcp-url", http.url, "--script", fixture("mcp-script.json"), "--store", "runs", "--json", "t"],
      { cwd },
    );
    const first = JSON.parse(run.stdout) as AgentResult;
    const log = `runs/${first.runId}.jsonl`;
    const again = await cli(["resume", log, "--mcp-url", http.url, "--script", fixture("mcp-script.json"), "--json"], {
      cwd,
    });
    expect(again.stderr).toBe("");
    expect(JSON.parse(again.stdout)).toEqual(first);
    const other = await cli(["resume", log, "--tools", fixture("tools.mjs"), "--json"], { cwd });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("was started with other tools than this registry has (");
  });

  it("a tools module and a server that both give get_weather: a usage error naming the clash", async () => {
    const run = await cli(
      [
        "run",
        "--tools",
        fixture("tools.mjs"),
        "--mcp-url",
        http.url,
        "--script",
        fixture("mcp-script.json"),
        "--json",
        "t",
      ],
      { cwd: tempDir() },
    );
    // The tools module has its own get_weather: two tools of one name are a usage error.
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^agentloop: the MCP servers' tools could not be added: tool 'get_weather' is already registered\n$/,
    );
  });

  it.each([
    [
      "a command that does not exist",
      ["--mcp", "no-such-mcp-server-here --flag"],
      /MCP server --mcp "no-such-mcp-server-here --flag" could not be used/,
    ],
    ["an unclosed quote", ["--mcp", `node "server.js`], /has an unclosed "/],
    ["a URL that is not one", ["--mcp-url", "not a url"], /--mcp-url not a url is not a URL/],
    [
      "a URL nobody answers",
      ["--mcp-url", "http://127.0.0.1:9/mcp"],
      /MCP server --mcp-url http:\/\/127\.0\.0\.1:9\/mcp could not be used/,
    ],
  ])("%s is a usage error naming the server", async (_label, flags, message) => {
    const run = await cli(["run", ...flags, "--script", fixture("mcp-script.json"), "t"], { cwd: tempDir() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
