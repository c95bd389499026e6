import assert from "node:assert/strict";
import { asks, final, MemoryEventStore, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { serveAgent } from "@agentloop/mcp";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";

// An agent whose email tool needs approval, served as one MCP tool named "mailer".
const registry = new ToolRegistry();
registry.register(
  "send_email",
  "Send an email.",
  { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
  ({ to }: { to: string }) => ({ sent: to }),
  { needsApproval: true },
);
const model = scriptedModel([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent to ana.")]);
const server = serveAgent({
  name: "mailer",
  description: "Emails people.",
  model,
  registry,
  store: new MemoryEventStore(),
});

// A client that answers forms: the waiting approval comes to it as input_required.
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: "example", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler("elicitation/create", (request) => {
  console.log(request.params.message); // Approve send_email with {"to":"ana"}?
  return { action: "accept", content: { approved: true } };
});
await client.connect(clientSide);

const result = await client.callTool({ name: "mailer", arguments: { task: "Email ana." } });
assert.deepEqual(result.content, [{ type: "text", text: "Sent to ana." }]);
console.log(result._meta?.["agentloop/runId"]);
await client.close();
