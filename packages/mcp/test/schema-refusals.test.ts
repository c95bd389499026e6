import { ToolRegistry, ToolSchemaError } from "@agentloop/core";
import type { Client } from "@modelcontextprotocol/client";
import { McpServer, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../src/index.js";
import { connectTo } from "./connect.js";

const TREE = {
  type: "object",
  properties: { root: { $ref: "#/$defs/node" } },
  required: ["root"],
  $defs: {
    node: {
      type: "object",
      properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
      required: ["label"],
    },
  },
};
const LOOP = {
  type: "object",
  properties: { q: { $ref: "#/$defs/a" } },
  $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } },
};

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/**
 * A schema as a server that checks nothing itself would list it (the SDK's own `fromJsonSchema`
 * compiles with ajv, which overflows its stack on the loop before the server can list it).
 */
function listedAsIs(schema: Record<string, unknown>): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    "~standard": {
      version: 1,
      vendor: "json-schema",
      validate: (value) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

/** A client connected in process to a server listing one tool of `schema`. */
async function serverListing(name: string, schema: Record<string, unknown>): Promise<Client> {
  const server = new McpServer({ name: "schemas", version: "1.0.0" });
  server.registerTool(name, { description: "Walks a tree.", inputSchema: listedAsIs(schema) }, async () => ({
    content: [{ type: "text", text: "walked" }],
  }));
  const connected = await connectTo(server);
  close = connected.close;
  return connected.client;
}

describe("a listed schema the validator cannot enforce, and one it can", () => {
  it("a loop that never goes into the arguments: mcpTools throws ToolSchemaError naming the tool", async () => {
    const client = await serverListing("loop", LOOP);
    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema).toMatchObject({ $defs: LOOP.$defs });
    const made = mcpTools(client);
    await expect(made).rejects.toThrow(ToolSchemaError);
    await expect(made).rejects.toThrow(/^loop: parameters refer to themselves in a loop .*'\$defs\.a' → '\$defs\.b'/);
  });

  it("a pattern whose check can take exponential time: mcpTools throws ToolSchemaError naming the tool", async () => {
    const client = await serverListing("find", {
      type: "object",
      properties: { q: { type: "string", pattern: "^(a+)+$" } },
    });
    const made = mcpTools(client);
    await expect(made).rejects.toThrow(ToolSchemaError);
    await expect(made).rejects.toThrow(/^find: 'properties\.q\.pattern' "\^\(a\+\)\+\$" can take exponential time/);
  });

  it("a tree: registered, and checked at every depth before the server is called", async () => {
    const client = await serverListing("walk", TREE);
    const registry = new ToolRegistry(await mcpTools(client));
    const root = { label: "a", children: [{ label: "b", children: [{ label: "c" }] }] };
    await expect(registry.execute("walk", { root })).resolves.toBe('"walked"');
    await expect(registry.execute("walk", { root: { label: "a", children: [{ label: 2 }] } })).resolves.toMatch(
      /^ERROR: argument 'root\.children\[0\]\.label' must be of type string/,
    );
  });
});
