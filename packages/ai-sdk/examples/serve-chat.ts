import assert from "node:assert/strict";
import { chatHandler } from "@agentloop/ai-sdk";
import { MemoryEventStore, ToolRegistry } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";

const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: 30 }),
  { needsApproval: true },
);
const model = scriptedModel([asks(toolCall("w1", "get_weather", { city: "Pune" })), final("It is 30 °C in Pune.")]);

// One handler for every chat: mount it at /api/chat (Next.js: `export const POST = handle, GET = handle`
// in app/api/chat/[[...path]]/route.ts; Hono: `app.all("/api/chat/*", (c) => handle(c.req.raw))`).
const handle = chatHandler({ model, registry, store: new MemoryEventStore() });

// What `useChat` posts for a first message: the chat id and the messages.
const ask = (messages: unknown[]) =>
  handle(
    new Request("http://localhost/api/chat", { method: "POST", body: JSON.stringify({ id: "chat-1", messages }) }),
  );
const question = { id: "u1", role: "user", parts: [{ type: "text", text: "How hot is Pune?" }] };
const first = await ask([question]);
assert.equal(first.headers.get("x-vercel-ai-ui-message-stream"), "v1");
const paused = await first.text();
assert.match(paused, /"type":"tool-approval-request","approvalId":"w1"/);

// After `addToolApprovalResponse({ id: "w1", approved: true })` the page posts the messages again,
// the tool part in `approval-responded`: the run goes on from the store with that decision.
const approved = {
  id: "a1",
  role: "assistant",
  parts: [
    {
      type: "tool-get_weather",
      toolCallId: "w1",
      state: "approval-responded",
      input: { city: "Pune" },
      approval: { id: "w1", approved: true },
    },
  ],
};
const chunks = (await (await ask([question, approved])).text())
  .split("\n\n")
  .filter((line) => line.startsWith("data: {"))
  .map((line) => JSON.parse(line.slice("data: ".length)) as { type: string; delta?: string });
assert.deepEqual(
  chunks.find((chunk) => chunk.type === "tool-output-available"),
  {
    type: "tool-output-available",
    toolCallId: "w1",
    output: { city: "Pune", celsius: 30 },
  },
);
const text = chunks
  .filter((chunk) => chunk.type === "text-delta")
  .map((chunk) => chunk.delta)
  .join("");
assert.equal(text, "It is 30 °C in Pune.");
