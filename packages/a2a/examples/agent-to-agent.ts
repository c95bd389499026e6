import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { a2aAgentTool, a2aHandler } from "@agentloop/a2a";
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

// The billing agent, an agentloop agent whose refunds need a person's approval, served over A2A.
const refunded: string[] = [];
const billingTools = new ToolRegistry();
billingTools.register(
  "refund",
  "Refund an order.",
  { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
  ({ order }: { order: string }) => {
    refunded.push(order);
    return { refunded: order };
  },
  { needsApproval: true },
);
const billingModel = scriptedModel([asks(toolCall("r1", "refund", { order: "7" })), final("Order 7 is refunded.")]);
let billing: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
const server = createServer(async (req, res) => {
  const body = req.method === "POST" ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null;
  const headers = Object.entries(req.headers).filter(
    (entry): entry is [string, string] => typeof entry[1] === "string",
  );
  const init = { method: req.method, headers, body, duplex: "half" } as RequestInit;
  const answer = await billing(new Request(`http://127.0.0.1${req.url}`, init));
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(Buffer.from(await answer.arrayBuffer()));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const address = server.address();
const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
billing = a2aHandler({
  model: billingModel,
  registry: billingTools,
  store: new MemoryEventStore(),
  card: { name: "billing", description: "Refunds orders.", url },
});

// The support agent calls billing as a tool, across A2A.
const supportTools = new ToolRegistry([
  a2aAgentTool({ url, name: "billing", description: "Refunds orders.", pollMs: 20 }),
]);
const supportModel = scriptedModel([
  asks(toolCall("b1", "billing", { task: "Refund order 7." })),
  final("Your order 7 is refunded."),
]);
const store = new MemoryEventStore();
const paused = await runAgent("Please refund order 7.", supportModel, supportTools, { store, runId: "support-1" });

// Billing's refund waits for an approval: its task is input-required, and the support run pauses
// with billing's question under its own call's id, as a local child's question would.
assert.equal(paused.status, "awaiting_input");
assert.deepEqual(
  paused.pendingQuestions?.map(({ id, question }) => [id, question]),
  [["b1", 'Approve refund with {"order":"7"}? Answer yes or no.']],
);
assert.deepEqual(refunded, []);

// The answer goes to billing on the same task; billing refunds, and the support run goes on.
const result = await resumeAgent("support-1", supportModel, supportTools, { store, answers: { b1: "yes" } });
assert.equal(result.status, "done");
assert.deepEqual(refunded, ["7"]);
assert.match(String(result.messages.at(-2)?.content), /^"Order 7 is refunded\."/);
console.log(result.answer);
server.close();
