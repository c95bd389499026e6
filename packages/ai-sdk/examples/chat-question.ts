import assert from "node:assert/strict";
import { chatHandler } from "@agentloop/ai-sdk";
import { askUserTool, MemoryEventStore, ToolRegistry } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";

// The model may ask the user (any JSON answers it; give `answer` a schema to shape it).
const registry = new ToolRegistry([askUserTool()]);
const model = scriptedModel([
  asks(toolCall("q1", "ask_user", { question: "Which city?" })),
  final("It is 30 °C in Pune."),
]);
const handle = chatHandler({ model, registry, store: new MemoryEventStore() });
const post = (messages: unknown[]) =>
  handle(
    new Request("http://localhost/api/chat", { method: "POST", body: JSON.stringify({ id: "chat-q", messages }) }),
  );

// The question arrives as a tool part left in `input-available`, as a client-side tool's call does.
const user = { id: "u1", role: "user", parts: [{ type: "text", text: "How hot is it?" }] };
assert.match(
  await (await post([user])).text(),
  /"type":"tool-input-available","toolCallId":"q1","toolName":"ask_user"/,
);

// On the page: render the part's `input.question`, and answer with
//   addToolOutput({ tool: "ask_user", toolCallId: part.toolCallId, output: "Pune" })
// under `useChat({ sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls })`: the page
// posts the messages again with the part in `output-available`, and the run goes on with that answer.
const answered = {
  id: "a1",
  role: "assistant",
  parts: [
    {
      type: "tool-ask_user",
      toolCallId: "q1",
      state: "output-available",
      input: { question: "Which city?" },
      output: "Pune",
    },
  ],
};
const resumed = (await (await post([user, answered])).text())
  .split("\n\n")
  .filter((line) => line.startsWith("data: {"))
  .map((line) => JSON.parse(line.slice("data: ".length)) as { type: string; delta?: string });
const text = resumed.flatMap((chunk) => (chunk.type === "text-delta" ? [chunk.delta] : [])).join("");
assert.equal(text, "It is 30 °C in Pune.");

// Answering again, once nothing waits, is refused in one line.
const again = await post([user, answered]);
assert.equal(again.status, 409);
console.log(await again.text());
