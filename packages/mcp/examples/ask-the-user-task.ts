import assert from "node:assert/strict";
import { asks, askUserTool, final, MemoryEventStore, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { serveAgent } from "@agentloop/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryTransport } from "@modelcontextprotocol/server";

// An agent that may ask the user where to go, served as one MCP tool named "planner".
const answer = {
  type: "object" as const,
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
  required: ["city", "days"],
};
const server = serveAgent({
  name: "planner",
  description: "Plans trips.",
  model: scriptedModel([
    asks(toolCall("q1", "ask_user", { question: "Where to, and for how long?" })),
    final("Packing for 3 days in Lima."),
  ]),
  registry: new ToolRegistry([askUserTool({ answer })]),
  store: new MemoryEventStore(),
});

// A client with the MCP SDK 1.x task runtime, which answers forms: the question comes to it as a
// form on `tasks/result` while the task is `input_required`, its fields the answer's shape.
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "example", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, (request) => {
  assert.deepEqual("requestedSchema" in request.params ? request.params.requestedSchema : null, answer);
  return { action: "accept", content: { city: "Lima", days: 3 } };
});
await client.connect(clientSide as unknown as Transport);

const statuses: string[] = [];
let text = "";
for await (const message of client.experimental.tasks.callToolStream(
  { name: "planner", arguments: { task: "Plan my trip." } },
  CallToolResultSchema,
  { task: { ttl: 60_000 } },
)) {
  if (message.type === "taskStatus") statuses.push(message.task.status);
  if (message.type === "result") text = (message.result.content[0] as { text: string }).text;
}
assert.equal(statuses.at(-1), "input_required");
assert.equal(text, "Packing for 3 days in Lima.");
console.log(text);
await client.close();
