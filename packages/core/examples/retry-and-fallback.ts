import assert from "node:assert/strict";
import { MemoryEventStore, type Model, runAgent, ToolRegistry } from "@agentloop/core";

// Two providers stand in here: the first is overloaded twice, then its key is refused; the
// second answers. With the adapters it is the same: openaiModel(...) and anthropicModel(...)
// mark their SDK's errors retryable (429, 529, 5xx, network, timeouts) or not (400, 401, quota).
let primaryCalls = 0;
const primary: Model = () => {
  primaryCalls += 1;
  if (primaryCalls <= 2) throw Object.assign(new Error("529 overloaded_error"), { retryable: true });
  throw Object.assign(new Error("401 invalid x-api-key"), { retryable: false });
};
const secondary: Model = () => ({ content: "Paris.", toolCalls: [] });

const store = new MemoryEventStore();
const result = await runAgent("What is the capital of France?", primary, new ToolRegistry(), {
  store,
  runId: "capital",
  retry: { attempts: 3, initialDelayMs: 10, maxDelayMs: 100 },
  fallbackModels: [secondary],
});
assert.equal(result.answer, "Paris.");

// Every failed attempt is in the log before the next one, and the reply says which model gave it.
const events = await store.read("capital");
const attempts = events.flatMap((event) => (event.type === "model.failed" ? [[event.model, event.retryable]] : []));
assert.deepEqual(attempts, [
  [0, true],
  [0, true],
  [0, false],
]);
assert.equal(events.find((event) => event.type === "model.replied")?.model, 1);
