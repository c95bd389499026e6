import assert from "node:assert/strict";
import {
  asks,
  final,
  MemoryEventStore,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { elicitationCapabilities, mcpTools } from "@agentloop/mcp";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

// A server whose tool asks the user which city before it books (and books nothing if declined).
const server = new McpServer({ name: "rooms", version: "1.0.0" });
server.registerTool(
  "book_room",
  { description: "Books a room.", inputSchema: z.object({}), annotations: { destructiveHint: false } },
  async (_args, ctx) => {
    const reply = await ctx.mcpReq.elicitInput({
      mode: "form",
      message: "Which city?",
      requestedSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
    const text = reply.action === "accept" ? `booked in ${reply.content?.city}` : `not booked (${reply.action})`;
    return { content: [{ type: "text", text }] };
  },
);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
// The client declares that it answers a server's forms.
const client = new Client({ name: "my-agent", version: "1.0.0" }, { capabilities: elicitationCapabilities });
await client.connect(clientSide);
const registry = new ToolRegistry(await mcpTools(client));

const script = () => [asks(toolCall("b1", "book_room", {})), final("Done.")];
const store = new MemoryEventStore();
const paused = await runAgent("Book me a room.", scriptedModel(script()), registry, { store, runId: "room-1" });
assert.equal(paused.status, "awaiting_input");
assert.equal(paused.pendingQuestions?.[0]?.question, "Which city?");

// The answer is the form's content; `{ $action: "decline" }` would decline it instead.
const done = await resumeAgent("room-1", scriptedModel(script().slice(1)), registry, {
  store,
  answers: { b1: { city: "Lima" } },
});
assert.match(String(done.messages[3]?.content), /^"booked in Lima"\n/);
console.log(done.messages[3]?.content);
await client.close();
