import assert from "node:assert/strict";
import {
  asks,
  continueAgent,
  final,
  handoff,
  MemoryEventStore,
  type Message,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";

// Billing refunds orders; it sees only what the user said, not triage's own lookups.
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
);
const billingModel = scriptedModel([
  asks(toolCall("b1", "refund", { order: "7" })),
  final("Order 7 is refunded."),
  final("You are welcome."),
]);

// Triage answers what it can and hands anything about money to billing.
const triageTools = new ToolRegistry([
  handoff(
    {
      name: "billing",
      description: "Refunds, invoices and payments.",
      model: billingModel,
      registry: billingTools,
      system: "You are billing. Refund orders when asked.",
    },
    { inputFilter: (messages: readonly Message[]) => messages.filter((message) => message.role === "user") },
  ),
]);
const triageModel = scriptedModel([asks(toolCall("t1", "transfer_to_billing"))]);

const store = new MemoryEventStore();
const result = await runAgent("Please refund order 7.", triageModel, triageTools, {
  name: "triage",
  system: "You are triage. Hand billing questions to billing.",
  store,
  runId: "support-1",
});
assert.equal(result.status, "done");
assert.equal(result.agent, "billing");
assert.equal(result.answer, "Order 7 is refunded.");
assert.deepEqual(refunded, ["7"]);

// The handoff call was answered at once, and the handoff is in the log with what billing was shown.
assert.deepEqual(result.messages[3], {
  role: "tool",
  toolCallId: "t1",
  name: "transfer_to_billing",
  content: "transferred to billing",
});
const logged = (await store.read("support-1")).find((event) => event.type === "handoff");
assert.deepEqual(logged?.type === "handoff" ? [logged.from, logged.to, logged.messages?.length] : [], [
  "triage",
  "billing",
  1,
]);
assert.deepEqual(billingModel.seen[0], [
  { role: "system", content: "You are billing. Refund orders when asked." },
  { role: "user", content: "Please refund order 7." },
]);

// The next message goes to the agent that answered last: billing.
const next = await continueAgent("support-1", "Thanks!", triageModel, triageTools, { store });
assert.equal(next.agent, "billing");
assert.equal(next.answer, "You are welcome.");
console.log(next.steps, next.agent);
