import assert from "node:assert/strict";
import { agUiHandler } from "@agentloop/ag-ui";
import { asks, final, MemoryEventStore, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";

// An agent whose email tool needs approval, served over AG-UI (mount the handler in any server).
const registry = new ToolRegistry();
registry.register(
  "send_email",
  "Send an email.",
  { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
  ({ to }: { to: string }) => ({ sent: to }),
  { needsApproval: true },
);
const model = scriptedModel([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent to ana.")]);
const handler = agUiHandler({ model, registry, store: new MemoryEventStore() });

const run = async (body: object) => {
  const response = await handler(new Request("http://127.0.0.1/agent", { method: "POST", body: JSON.stringify(body) }));
  const frames = (await response.text()).split("\n\n").filter((frame) => frame.startsWith("data: "));
  return frames.map((frame) => JSON.parse(frame.slice(6)));
};

// The first run ends with an interrupt outcome: one interrupt per call waiting for approval.
const input = { threadId: "thread-1", runId: "run-1", messages: [{ id: "u1", role: "user", content: "Email ana." }] };
const first = await run(input);
assert.deepEqual(
  first.at(-1).outcome.interrupts.map((interrupt: { id: string }) => interrupt.id),
  ["e1"],
);

// The next run on the same thread answers it in resume[]; the run goes on from its log.
const second = await run({
  ...input,
  runId: "run-2",
  resume: [{ interruptId: "e1", status: "resolved", payload: { approved: true } }],
});
assert.equal(second.at(-1).result.answer, "Sent to ana.");
console.log(second.at(-1).result.answer);
