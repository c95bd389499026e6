import assert from "node:assert/strict";
import {
  asks,
  askUserTool,
  final,
  MemoryEventStore,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { z } from "zod";

const registry = new ToolRegistry([
  askUserTool({ answer: z.object({ city: z.string(), days: z.number().int().min(1) }) }),
]);
const script = () => [
  asks(toolCall("q1", "ask_user", { question: "Where to, and for how many days?" })),
  final("Packing for 3 days in Lima."),
];

// The model asks; the run pauses with the question, its log kept.
const store = new MemoryEventStore();
const paused = await runAgent("Plan my trip.", scriptedModel(script()), registry, { store, runId: "trip-1" });
assert.equal(paused.status, "awaiting_input");
assert.equal(paused.pendingQuestions?.[0]?.question, "Where to, and for how many days?");

// An answer that does not fit the shape is refused in one line, and nothing is logged.
await assert.rejects(
  resumeAgent("trip-1", scriptedModel(script().slice(1)), registry, { store, answers: { q1: { city: "Lima" } } }),
  /the answer to 'q1' does not fit/,
);

// Later, maybe in another process: answer, and the model reads the answer as the call's result.
const done = await resumeAgent("trip-1", scriptedModel(script().slice(1)), registry, {
  store,
  answers: { q1: { city: "Lima", days: 3 } },
});
assert.equal(done.status, "done");
assert.equal(done.messages[3]?.content, '{"city":"Lima","days":3}');
