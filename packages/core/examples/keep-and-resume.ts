import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  asks,
  final,
  forkRun,
  replayRun,
  resumeAgent,
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
  ({ city }: { city: string }) => ({ city, celsius: 30 }),
);
const script = () => [asks(toolCall("c1", "get_weather", { city: "Pune" })), final("It is 30 °C in Pune.")];

// Keep the run: one <runId>.jsonl file per run, every event logged before the machine sees it.
const store = new JsonlEventStore(mkdtempSync(join(tmpdir(), "agentloop-runs-")));
const live = await runAgent("How hot is Pune?", scriptedModel(script()), registry, { store, runId: "pune-1" });

// Replay: rebuild the run from its log alone, calling no model and running no tool.
const replayed = replayRun(await store.read("pune-1"));
assert.deepEqual(replayed.result?.messages, live.messages);

// Resume: a finished run comes back as it was; an interrupted one goes on from its log.
const again = await resumeAgent("pune-1", scriptedModel([]), registry, { store });
assert.deepEqual(again, live);

// Fork: a new run from a prefix of the log (here: up to the tool's result), with other limits.
const forkId = await forkRun(store, "pune-1", { keep: 4, tokenBudget: 8000 });
const forked = await resumeAgent(forkId, scriptedModel([final("Still 30 °C.")]), registry, { store });
assert.equal(forked.answer, "Still 30 °C.");
assert.equal((await store.list()).length, 2);
