import assert from "node:assert/strict";
import {
  agentTool,
  asks,
  final,
  MemoryEventStore,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";

// The search agent: it searches, and emails what it found; sending an email needs a decision.
const sent: string[] = [];
const searchTools = new ToolRegistry();
searchTools.register(
  "search",
  "Search the web.",
  { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  ({ q }: { q: string }) => ({ hits: [`${q}: Lima`] }),
);
searchTools.register(
  "send_email",
  "Send an email.",
  { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
  ({ to }: { to: string }) => {
    sent.push(to);
    return { sent: to };
  },
  { needsApproval: true },
);
const searchModel = scriptedModel([
  asks(toolCall("c1", "search", { q: "capital of Peru" })),
  asks(toolCall("c2", "send_email", { to: "ana@example.com" })),
  final("Lima; ana has it."),
]);

// The research agent delegates to it through one tool; the child gets its own prompt and limits.
const tools = new ToolRegistry([
  agentTool({
    name: "search_agent",
    description: "Searches the web and emails what it finds. Give it the whole task.",
    model: searchModel,
    registry: searchTools,
    options: { system: "You search, then report by email.", maxSteps: 6 },
  }),
]);
const researchModel = scriptedModel([
  asks(toolCall("r1", "search_agent", { task: "Find the capital of Peru and email it to ana@example.com." })),
  final("Lima, and ana was told."),
]);

// The child's email waits for a decision: the child pauses, and so does the research agent.
const store = new MemoryEventStore();
const paused = await runAgent("What is the capital of Peru? Tell ana.", researchModel, tools, {
  store,
  runId: "research-1",
});
assert.equal(paused.status, "awaiting_approval");
assert.deepEqual(paused.pendingApprovals, [{ id: "r1/c2", name: "send_email", args: { to: "ana@example.com" } }]);
assert.deepEqual(sent, []);

// The decision names the call by its chained id; the child goes on from its log, then the parent.
const done = await resumeAgent("research-1", researchModel, tools, {
  store,
  decisions: { "r1/c2": { approved: true } },
});
assert.equal(done.status, "done");
assert.equal(done.answer, "Lima, and ana was told.");
assert.deepEqual(sent, ["ana@example.com"]);

// The child kept its own log, linked from the parent's; its tokens count in the parent's.
const [childStart] = await store.read("research-1.r1");
assert.deepEqual(childStart?.type === "run.started" ? childStart.parent : undefined, {
  runId: "research-1",
  callId: "r1",
});
const finished = (await store.read("research-1")).find((event) => event.type === "tool.finished");
assert.equal(finished?.type === "tool.finished" ? finished.childRunId : undefined, "research-1.r1");
console.log(done.tokens, finished?.type === "tool.finished" ? finished.tokens : 0);
