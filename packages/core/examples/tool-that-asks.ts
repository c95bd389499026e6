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

const registry = new ToolRegistry();
registry.register("book_room", "Books a room.", { type: "object", properties: {} }, async (_args, { ask }) => {
  // With no answer at hand the call ends here and the run pauses; made again, ask gives the answer.
  const { city } = (await ask("Which city?", {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
  })) as { city: string };
  return { booked: city };
});
const script = () => [asks(toolCall("b1", "book_room", {})), final("Booked in Lima.")];

const store = new MemoryEventStore();
const paused = await runAgent("Book me a room.", scriptedModel(script()), registry, { store, runId: "room-1" });
assert.equal(paused.status, "awaiting_input");
assert.deepEqual(
  paused.pendingQuestions?.map(({ id, question }) => ({ id, question })),
  [{ id: "b1", question: "Which city?" }],
);

const done = await resumeAgent("room-1", scriptedModel(script().slice(1)), registry, {
  store,
  answers: { b1: { city: "Lima" } },
});
assert.equal(done.status, "done");
// The observation is the call made again, and says so.
assert.match(String(done.messages[3]?.content), /^\{"booked":"Lima"\}\n\(book_room asked the user a question/);
