import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  asks,
  continueAgent,
  final,
  replayRun,
  retain,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";

const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: city === "Pune" ? 30 : 35 }),
);
const store = new JsonlEventStore(mkdtempSync(join(tmpdir(), "agentloop-runs-")));
const script = [asks(toolCall("c1", "get_weather", { city: "Pune" })), final("It is 30 °C in Pune.")];
await runAgent("How hot is Pune?", scriptedModel(script), registry, { store, runId: "chat-1" });

// Runs that finished before olderThan (here: all of them) keep one event: their anchor.
const { pruned } = await retain(store, { olderThan: new Date(Date.now() + 1000) });
assert.deepEqual(pruned, ["chat-1"]);
const anchored = await store.read("chat-1");
assert.equal(anchored.length, 1);
assert.equal(anchored[0]?.type, "run.anchored");
// It still verifies and replays to the run's result...
assert.equal(replayRun(anchored).result?.answer, "It is 30 °C in Pune.");
// ...and the conversation goes on from it, the model shown every message as before.
const more = [asks(toolCall("c2", "get_weather", { city: "Delhi" })), final("Delhi is 35 °C.")];
const next = await continueAgent("chat-1", "And Delhi?", scriptedModel(more), registry, { store });
assert.equal(next.answer, "Delhi is 35 °C.");
assert.equal(next.messages[1]?.content, "How hot is Pune?");
