import assert from "node:assert/strict";
import {
  asks,
  contentText,
  final,
  MemoryEventStore,
  type Model,
  runAgent,
  scriptedModel,
  shownAtStep,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";

// A long research run: every page the tool reads is 2 KB, so the list grows fast.
const registry = new ToolRegistry();
const page = { type: "object", properties: { page: { type: "integer" } }, required: ["page"] } as const;
registry.register(
  "read_page",
  "Reads one page of the report.",
  page,
  (args) => `page ${args.page}: ${"…".repeat(2000)}`,
);

const script = [1, 2, 3, 4, 5, 6].map((n) => asks(toolCall(`p${n}`, "read_page", { page: n })));
const model = scriptedModel([...script, final("Six pages read; the report holds up.")]);

// The summarizer is any model, called without tools; here a cheap one that is scripted too.
const summarizer: Model = (messages) => {
  const pages = contentText(messages.at(-1)?.content ?? "").match(/page \d+/g) ?? [];
  return { content: `Read so far: ${pages.join(", ")}.`, toolCalls: [] };
};

const store = new MemoryEventStore();
const result = await runAgent("Check the report, page by page.", model, registry, {
  store,
  runId: "research",
  tokenBudget: 100_000,
  // Before a model call whose prompt would pass 2,000 tokens, the messages between the task and
  // the last 2 are summarized. The list itself keeps every message.
  compaction: { triggerTokens: 2000, keepRecent: 2, summarizer },
});
assert.equal(result.status, "done");
assert.equal(result.messages.length, 2 + 6 * 2 + 1);

// What the model was shown last: the system message, the task, the summary, then the messages
// that came after it — fewer than the list holds.
const last = model.seen.at(-1) ?? [];
assert.deepEqual(
  last.slice(0, 3).map((m) => m.role),
  ["system", "user", "user"],
);
assert.match(contentText(last[2]?.content ?? ""), /Read so far: page 1, page 2/);
assert.ok(last.length < result.messages.length - 1);

// Each summary is logged before the next model call, so the view at any step comes from the log,
// and replay, resume and fork never ask the summarizer again.
const events = await store.read("research");
assert.ok(events.some((event) => event.type === "context.compacted"));
assert.deepEqual(shownAtStep(events, 7), last);
