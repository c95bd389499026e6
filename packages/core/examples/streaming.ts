import assert from "node:assert/strict";
import { final, scriptedModel, streamAgent, ToolRegistry } from "@agentloop/core";

// streamAgent yields the run as it happens: text as the model writes it, each step, each tool
// call and its result, decisions, and last the result. A model that can stream (the adapters, the
// scripted model) is asked to, through its `onDelta` option.
const stream = streamAgent("Say hello.", scriptedModel([final("Hello there, world.")]), new ToolRegistry());

let text = "";
for await (const event of stream) {
  if (event.type === "text-delta") text += event.text; // print it as it comes: process.stdout.write(event.text)
  if (event.type === "finished") assert.equal(event.result.status, "done");
}
assert.equal(text, "Hello there, world.");
assert.equal((await stream.result).answer, "Hello there, world.");

// runAgent takes the same events as a callback.
// await runAgent(task, model, registry, { onEvent: (event) => ... });
