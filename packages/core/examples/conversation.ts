import assert from "node:assert/strict";
import { continueAgent, final, MemoryEventStore, runAgent, scriptedModel, ToolRegistry } from "@agentloop/core";

const registry = new ToolRegistry();
const store = new MemoryEventStore();

// A first turn, kept in a store.
const first = await runAgent("My name is Ana.", scriptedModel([final("Nice to meet you, Ana.")]), registry, {
  store,
  runId: "chat-1",
});
assert.equal(first.status, "done");

// The user's next message goes on in the same run: it is logged, and the model sees the whole
// conversation. Each turn gets its own maxSteps and tokenBudget; steps and tokens count over the run.
const model = scriptedModel([final("Your name is Ana.")]);
const second = await continueAgent("chat-1", "What is my name?", model, registry, { store });
assert.equal(second.answer, "Your name is Ana.");
assert.deepEqual(
  model.seen[0]?.map((m) => m.role),
  ["system", "user", "assistant", "user"],
);

// A conversation from elsewhere (a chat application moving to agentloop) starts a run as `history`.
const migrated = await runAgent("And now?", scriptedModel([final("Still Ana.")]), registry, {
  history: [
    { role: "user", content: "My name is Ana." },
    { role: "assistant", content: "Nice to meet you, Ana.", toolCalls: [] },
  ],
});
assert.equal(migrated.messages.length, 5);
