import { fileURLToPath } from "node:url";
import { asks, final, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../src/index.js";
import { startHttpServer } from "./fixtures/servers.mjs";

const serverFile = fileURLToPath(new URL("./fixtures/servers.mjs", import.meta.url));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

async function stdioClient(): Promise<Client> {
  const client = new Client({ name: "agentloop-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverFile], stderr: "ignore" }));
  closers.push(() => client.close());
  return client;
}

async function httpClient(): Promise<Client> {
  const server = await startHttpServer();
  closers.push(() => server.close());
  const client = new Client({ name: "agentloop-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  closers.push(() => client.close());
  return client;
}

describe.each([
  ["a stdio child process", stdioClient],
  ["Streamable HTTP on 127.0.0.1", httpClient],
])("mcpTools over %s", (_label, connect) => {
  it("lists the tools and calls them", async () => {
    const registry = new ToolRegistry(await mcpTools(await connect()));
    expect(registry.specs().map((spec) => spec.name)).toContain("get_weather");
    await expect(registry.execute("get_weather", { city: "Pune" })).resolves.toBe(
      JSON.stringify(JSON.stringify({ city: "Pune", celsius: 30 })),
    );
    await expect(registry.execute("add", { a: 1, b: 2 })).resolves.toBe('{"sum":3}');
    await expect(registry.execute("fail", {})).resolves.toBe(
      "ERROR: fail failed: McpToolError: the archive is offline",
    );
    await expect(registry.execute("add", { a: "1", b: 2 })).resolves.toMatch(
      /^ERROR: argument 'a' must be of type number/,
    );
  });

  it("a hanging call gives an ERROR: observation within the tool's timeout", async () => {
    const registry = new ToolRegistry(await mcpTools(await connect(), { overrides: { hang: { timeoutMs: 200 } } }));
    // The call never settles on the server: an answer at all is the timeout's doing.
    await expect(registry.execute("hang", {})).resolves.toMatch(/^ERROR: hang timed out after 200 ms/);
    // The connection is still usable after the abandoned call.
    await expect(registry.execute("add", { a: 1, b: 1 })).resolves.toBe('{"sum":2}');
  });
});

describe("a server that dies mid-call", () => {
  it("stdio: the child exits while the call waits, and the call ends with an ERROR: observation", async () => {
    const registry = new ToolRegistry(await mcpTools(await stdioClient(), { options: { timeoutMs: 10_000 } }));
    // "failed", not "timed out": the call ended because the child exited, not at its timeout.
    await expect(registry.execute("die", {})).resolves.toMatch(/^ERROR: die failed: /);
  });

  it("stdio: a run whose server dies mid-call goes on to its answer", async () => {
    const registry = new ToolRegistry(await mcpTools(await stdioClient(), { options: { needsApproval: false } }));
    const model = scriptedModel([asks(toolCall("c1", "die", {})), final("The server is gone.")]);
    const result = await runAgent("Try it.", model, registry, { toolTimeoutMs: 10_000 });
    expect(result.status).toBe("done");
    expect(result.messages[3]).toMatchObject({ role: "tool", content: expect.stringMatching(/^ERROR: die failed: /) });
  });

  it("HTTP: the server closes every connection while the call waits", async () => {
    const server = await startHttpServer();
    const client = new Client({ name: "agentloop-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    closers.push(() => client.close());
    const registry = new ToolRegistry(await mcpTools(client, { options: { timeoutMs: 3_000 } }));
    const pending = registry.execute("hang", {});
    setTimeout(() => void server.close(), 100);
    await expect(pending).resolves.toMatch(/^ERROR: hang (failed|timed out after 3000 ms)/);
  });
});
