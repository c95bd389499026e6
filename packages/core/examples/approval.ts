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

const sent: string[] = [];
const registry = new ToolRegistry();
registry.register(
  "send_email",
  "Send an email.",
  { type: "object", properties: { to: { type: "string" }, body: { type: "string" } }, required: ["to", "body"] },
  ({ to }: { to: string }) => {
    sent.push(to);
    return { sent: true };
  },
  { needsApproval: true },
);
const script = () => [
  asks(
    toolCall("e1", "send_email", { to: "ana@example.com", body: "Hi" }),
    toolCall("e2", "send_email", { to: "all@example.com", body: "Hi" }),
  ),
  final("Sent one email."),
];

// Without an approver the run pauses, its log kept, and says which calls wait for a decision.
const store = new MemoryEventStore();
const paused = await runAgent("Email the team.", scriptedModel(script()), registry, { store, runId: "mail-1" });
assert.equal(paused.status, "awaiting_approval");
assert.deepEqual(
  paused.pendingApprovals?.map((call) => call.id),
  ["e1", "e2"],
);
assert.deepEqual(sent, []);

// Later, maybe in another process: decide, and the same run goes on from its log.
const resumed = await resumeAgent("mail-1", scriptedModel(script().slice(1)), registry, {
  store,
  decisions: { e1: { approved: true }, e2: { approved: false, reason: "too many recipients" } },
});
assert.equal(resumed.status, "done");
assert.deepEqual(sent, ["ana@example.com"]);
const log = await store.read("mail-1");
assert.equal(log.filter((event) => event.type === "approval.decided").length, 2);
