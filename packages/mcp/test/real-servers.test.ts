import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolRegistry } from "@agentloop/core";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpTools } from "../src/index.js";

// The reference servers themselves, as published on npm, each run over stdio.
const serverFile = (name: string) =>
  fileURLToPath(new URL(`../node_modules/@modelcontextprotocol/${name}/dist/index.js`, import.meta.url));

async function connect(name: string, args: readonly string[]): Promise<Client> {
  const client = new Client({ name: "agentloop-test", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverFile(name), ...args],
    stderr: "ignore",
  });
  await client.connect(transport);
  return client;
}

describe("@modelcontextprotocol/server-everything", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect("server-everything", ["stdio"]);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("leaves out simulate-research-query, which runs only as a task, and says so", async () => {
    const warnings: string[] = [];
    const tools = await mcpTools(client, { onWarning: (message) => warnings.push(message) });
    const names = tools.map((each) => each.name);
    expect(names).not.toContain("simulate-research-query");
    expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "get-tiny-image"]));
    expect(warnings).toEqual([
      "mcpTools: left out 'simulate-research-query': the server runs them only as tasks, which this client does not support",
    ]);
    // What every call of it gives without the task protocol.
    await expect(
      client.callTool({ name: "simulate-research-query", arguments: { topic: "tides" } }),
    ).resolves.toMatchObject({
      isError: true,
      content: [expect.objectContaining({ text: expect.stringContaining("-32601") })],
    });
    const registry = new ToolRegistry(tools);
    await expect(registry.execute("get-sum", { a: 2, b: 3 })).resolves.toMatch(/5/);
    await expect(registry.execute("get-tiny-image", {})).resolves.toEqual(
      expect.arrayContaining([
        { type: "image", mediaType: "image/png", data: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) },
      ]),
    );
  });
});

describe("@modelcontextprotocol/server-filesystem", () => {
  let client: Client;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentloop-mcp-fs-"));
    // A PNG's first bytes, then noise: 12,000 bytes, which the server sends as 16,000 characters of base64.
    writeFileSync(join(dir, "shot.png"), Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), randomBytes(11_992)]));
    client = await connect("server-filesystem", [dir]);
  });
  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("read_media_file's picture is a line describing it, not its base64", async () => {
    const registry = new ToolRegistry(await mcpTools(client, { include: ["read_media_file"] }));
    await expect(registry.execute("read_media_file", { path: join(dir, "shot.png") })).resolves.toBe(
      '{"content":["[image image/png, 12000 bytes]"]}',
    );
  });
});
