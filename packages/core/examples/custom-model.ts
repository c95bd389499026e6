import assert from "node:assert/strict";
import { type Model, type ModelReply, runAgent, ToolRegistry } from "@agentloop/core";

// A model is any function (messages, tools, { signal }) => reply. This one calls the only tool
// once, then answers with what it got back; a real adapter maps the same data to an HTTP API.
const echoOnce: Model = (messages, tools, { signal }): ModelReply => {
  signal.throwIfAborted();
  const last = messages.at(-1);
  if (last?.role === "tool") return { content: `The tool said ${last.content}.`, toolCalls: [] };
  const [tool] = tools;
  if (tool === undefined) return { content: "I have no tools.", toolCalls: [] };
  return {
    content: "",
    toolCalls: [{ id: "call-1", name: tool.name, args: {} }],
    usage: { inputTokens: 50, outputTokens: 10 },
  };
};

const registry = new ToolRegistry();
registry.register("now", "The time, as an ISO string.", { type: "object" }, () => "2030-01-01T00:00:00Z");

const result = await runAgent("What time is it?", echoOnce, registry);
assert.equal(result.answer, 'The tool said "2030-01-01T00:00:00Z".');
