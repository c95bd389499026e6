import assert from "node:assert/strict";
import { asks, contentText, final, runAgent, scriptedModel, ToolRegistry, tool, toolCall } from "@agentloop/core";
import { mcpTools } from "@agentloop/mcp";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

// An MCP server with one tool. Here it runs in this process; a real one is usually another
// process: connect to it with StdioClientTransport or StreamableHTTPClientTransport instead.
const server = new McpServer({ name: "weather", version: "1.0.0" });
server.registerTool(
  "get_weather",
  {
    description: "Current temperature of one city in Celsius.",
    inputSchema: z.object({ city: z.string() }),
    annotations: { readOnlyHint: true }, // read-only: no approval needed, safe to run again
  },
  async ({ city }) => ({ content: [{ type: "text", text: JSON.stringify({ city, celsius: 30 }) }] }),
);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "my-agent", version: "1.0.0" });
await client.connect(clientSide);

// A tool of your own: its arguments are typed from the zod schema.
const toFahrenheit = tool({
  name: "c_to_f",
  description: "Convert Celsius to Fahrenheit.",
  parameters: z.object({ celsius: z.number().describe("degrees Celsius") }),
  execute: ({ celsius }) => ({ fahrenheit: (celsius * 9) / 5 + 32 }),
});

const registry = new ToolRegistry([toFahrenheit, ...(await mcpTools(client))]);

const model = scriptedModel([
  asks(toolCall("c1", "get_weather", { city: "Pune" })),
  asks(toolCall("c2", "c_to_f", { celsius: "30" })), // a string: refused before anything runs
  asks(toolCall("c3", "c_to_f", { celsius: 30 })),
  final("It is 86 °F in Pune."),
]);
const result = await runAgent("How hot is Pune, in Fahrenheit?", model, registry);
await client.close();

const observations = result.messages.flatMap((message) =>
  message.role === "tool" ? [contentText(message.content)] : [],
);
assert.equal(result.status, "done");
assert.equal(observations[0], JSON.stringify('{"city":"Pune","celsius":30}'));
assert.match(observations[1] ?? "", /^ERROR: argument 'celsius' must be of type number \(got "30"\)/);
assert.equal(observations[2], '{"fahrenheit":86}');
console.log(result.answer);
