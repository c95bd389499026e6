import { randomBytes } from "node:crypto";
import { ToolRegistry } from "@agentloop/core";
import type { Client } from "@modelcontextprotocol/client";
import { McpServer, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../src/index.js";
import { connectTo } from "./connect.js";

// A PNG's first bytes, then noise: 12,000 bytes, 16,000 characters of base64.
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), randomBytes(11_992)]).toString("base64");

/** server-filesystem's `read_media_file`: its media both in `content` and in `structuredContent`, with its output schema. */
function mediaServer(): McpServer {
  const server = new McpServer({ name: "shapes", version: "1.0.0" });
  const media = z.object({ type: z.enum(["image", "audio"]), data: z.string(), mimeType: z.string() });
  const blob = z.object({
    type: z.literal("resource"),
    resource: z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string() }),
  });
  server.registerTool(
    "read_media_file",
    {
      description: "Read a file and return it as a base64-encoded content block with its MIME type.",
      inputSchema: { path: z.string() },
      outputSchema: { content: z.array(z.union([media, blob])) },
      annotations: { readOnlyHint: true },
    },
    async ({ path }) => {
      const item = path.endsWith(".png")
        ? ({ type: "image", data: PNG, mimeType: "image/png" } as const)
        : ({
            type: "resource",
            resource: { uri: `file://${path}`, mimeType: "application/zip", blob: "UEsDBA==" },
          } as const);
      return { content: [item], structuredContent: { content: [item] } };
    },
  );
  return server;
}

/**
 * server-everything's `simulate-research-query`, which runs only as a task and refuses a plain call
 * with -32601, beside a tool that may run as a task or not.
 */
function taskServer(): Server {
  const server = new Server({ name: "tasks", version: "1.0.0" }, { capabilities: { tools: {} } });
  const topic = { type: "object" as const, properties: { topic: { type: "string" } }, required: ["topic"] };
  server.setRequestHandler("tools/list", () => ({
    tools: [
      { name: "simulate-research-query", inputSchema: topic, execution: { taskSupport: "required" as const } },
      { name: "echo", inputSchema: topic, execution: { taskSupport: "optional" as const } },
    ],
  }));
  server.setRequestHandler("tools/call", (request) => {
    if (request.params.name !== "echo") {
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, "this tool runs only as a task");
    }
    return { content: [{ type: "text" as const, text: String(request.params.arguments?.topic) }] };
  });
  return server;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function connect(server: McpServer | Server): Promise<Client> {
  const connected = await connectTo(server);
  close = connected.close;
  return connected.client;
}

describe("shapes real MCP servers give", () => {
  it("media in structuredContent is a one-line description, not base64 cut at the result limit", async () => {
    const registry = new ToolRegistry(await mcpTools(await connect(mediaServer())));
    await expect(registry.execute("read_media_file", { path: "/shots/a.png" })).resolves.toBe(
      '{"content":["[image image/png, 12000 bytes]"]}',
    );
    await expect(registry.execute("read_media_file", { path: "/shots/a.zip" })).resolves.toBe(
      '{"content":["[resource file:///shots/a.zip, application/zip]"]}',
    );
  });

  it("a tool that runs only as a task is left out, with a warning naming it; an optional one stays", async () => {
    const client = await connect(taskServer());
    const listed = await client.listTools();
    expect(listed.tools.find((each) => each.name === "simulate-research-query")?.execution).toEqual({
      taskSupport: "required",
    });
    // What the model would get for every call if it were offered the tool.
    await expect(
      client.callTool({ name: "simulate-research-query", arguments: { topic: "tides" } }),
    ).rejects.toMatchObject({ code: -32601 });

    const warnings: string[] = [];
    const tools = await mcpTools(client, { onWarning: (message) => warnings.push(message) });
    expect(tools.map((each) => each.name)).toEqual(["echo"]);
    expect(warnings).toEqual([
      "mcpTools: left out 'simulate-research-query': the server runs them only as tasks, which this client does not support",
    ]);
    await expect(new ToolRegistry(tools).execute("echo", { topic: "tides" })).resolves.toBe('"tides"');
  });

  it("gives no warning when every listed tool can be called", async () => {
    const warnings: string[] = [];
    await mcpTools(await connect(mediaServer()), { onWarning: (message) => warnings.push(message) });
    expect(warnings).toEqual([]);
  });
});
