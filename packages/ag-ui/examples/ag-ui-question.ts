import assert from "node:assert/strict";
import { agUiHandler } from "@agentloop/ag-ui";
import { asks, askUserTool, final, MemoryEventStore, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";

// The model may ask the user; the answer has a shape of its own.
const answer = {
  type: "object" as const,
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
  required: ["city", "days"],
};
const registry = new ToolRegistry([askUserTool({ answer })]);
const model = scriptedModel([
  asks(toolCall("q1", "ask_user", { question: "Where to, and for how long?" })),
  final("Packing for 3 days in Lima."),
]);
const handler = agUiHandler({ model, registry, store: new MemoryEventStore() });
const run = async (body: object) => {
  const response = await handler(new Request("http://127.0.0.1/agent", { method: "POST", body: JSON.stringify(body) }));
  const frames = (await response.text()).split("\n\n").filter((frame) => frame.startsWith("data: "));
  return frames.map((frame) => JSON.parse(frame.slice(6)));
};

// The question ends the run with an interrupt: its message is the question, its responseSchema the answer's shape.
const input = { threadId: "trip", runId: "run-1", messages: [{ id: "u1", role: "user", content: "Plan my trip." }] };
const [interrupt] = (await run(input)).at(-1).outcome.interrupts;
assert.deepEqual(interrupt, {
  id: "q1",
  reason: "user_input",
  message: "Where to, and for how long?",
  toolCallId: "q1",
  responseSchema: answer,
});

// The next run on the thread answers it: a `resolved` entry whose payload is the answer.
const resumed = await run({
  ...input,
  runId: "run-2",
  resume: [{ interruptId: "q1", status: "resolved", payload: { city: "Lima", days: 3 } }],
});
assert.equal(resumed.at(-1).result.answer, "Packing for 3 days in Lima.");
console.log(resumed.at(-1).result.answer);
