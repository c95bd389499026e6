import assert from "node:assert/strict";
import {
  asks,
  final,
  InMemoryMemoryStore,
  MemoryEventStore,
  memoryTools,
  quotedMemories,
  runAgent,
  runsRecalling,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";

// Whose memories: a user (or a tenant) across conversations. `{ thread }` scopes one conversation.
const scope = { resource: "user-42" };
const memory = new InMemoryMemoryStore(); // SqliteMemoryStore from @agentloop/sqlite keeps them in a file
const store = new MemoryEventStore();
const registry = new ToolRegistry().add(...memoryTools(memory, scope)); // `remember` and `recall`

// A first conversation: the model writes a fact with `remember`; the run logs it as memory.written.
await runAgent(
  "Please call me Ana.",
  scriptedModel([
    asks(toolCall("w1", "remember", { key: "name", value: "The user wants to be called Ana" })),
    final("Noted, Ana."),
  ]),
  registry,
  { store, runId: "monday", memory: { store: memory, scope } },
);
assert.equal(await memory.get(scope, "name"), "The user wants to be called Ana");

// A second conversation, days later: before its first model call the run recalls the memories that
// match the message, logs them (memory.recalled, values included), and shows them to the model as
// quoted data in a message of the turn. The system prompt is never touched.
const model = scriptedModel([final("Ana.")]);
const result = await runAgent("What is my name?", model, registry, {
  store,
  runId: "friday",
  memory: { store: memory, scope, recall: 3 },
});
assert.equal(result.answer, "Ana.");
const shown = model.seen[0] ?? [];
assert.deepEqual(
  shown.map((message) => message.role),
  ["system", "user", "user"],
);
assert.deepEqual(quotedMemories(String(shown[2]?.content)), [
  { key: "name", value: "The user wants to be called Ana" },
]);

// Forget me: where were this user's memories shown to a model? Then delete them all.
const recalled = await runsRecalling(store, scope);
assert.deepEqual(
  recalled.map((run) => run.runId),
  ["friday"],
);
await memory.delete(scope);
assert.equal(await memory.get(scope, "name"), undefined);
