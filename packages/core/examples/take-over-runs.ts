import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asks, final, type Message, resumeUnfinished, runAgent, ToolRegistry, toolCall } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";

const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: 30 }),
);
// A model that answers from the list it is shown, as a real one does: a taken-over run goes on where its log ends.
const model = (messages: readonly Message[]) =>
  messages.some((message) => message.role === "tool")
    ? final("It is 30 °C in Pune.")
    : asks(toolCall("c1", "get_weather", { city: "Pune" }));

const store = new JsonlEventStore(mkdtempSync(join(tmpdir(), "agentloop-runs-")));
// A process that dies mid-run: here its model fails after the tool ran; a kill -9 leaves the same kind of log.
let calls = 0;
const dying = (messages: readonly Message[]) => {
  if (++calls === 2) throw new Error("the process died");
  return model(messages);
};
await runAgent("How hot is Pune?", dying, registry, { store, runId: "pune-1" }).catch(() => undefined);

// Every service process sweeps at its start: it takes over each run no live process holds and that
// waits for no person, under the run's lock, so that many processes sweeping at once take each run once.
const { resumed, skipped } = await resumeUnfinished(store, { model, registry });
assert.deepEqual(resumed, ["pune-1"]);
assert.deepEqual(skipped, []);
const [run] = await store.list();
assert.equal(run?.outcome?.answer, "It is 30 °C in Pune.");
