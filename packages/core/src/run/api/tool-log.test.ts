import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseEventLog } from "../../log/event-log.js";
import { MemoryEventStore } from "../../log/event-store.js";
import { replayRun } from "../../log/replay.js";
import { asks, final, scriptedModel, toolCall } from "../../testing/index.js";
import { jsonSchema } from "../../tools/schema/json-schema-parameters.js";
import { tool } from "../../tools/tool.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { resumeAgent } from "./resume.js";
import { runAgent } from "./run-agent.js";

function registry(): ToolRegistry {
  return new ToolRegistry([
    tool({
      name: "search",
      description: "Search.",
      parameters: z.object({ filters: z.array(z.object({ op: z.enum(["eq", "lt"]) })) }),
      execute: ({ filters }) => filters.length,
    }),
    tool({
      name: "tag",
      description: "Tag.",
      parameters: jsonSchema({ type: "object", properties: { tags: { type: "array", items: { type: "string" } } } }),
      execute: ({ tags }) => tags ?? [],
      needsApproval: true,
    }),
  ]);
}

describe("a run with zod and JSON Schema tools", () => {
  it("writes a log its own reader accepts, which replays to the run's result and resumes", async () => {
    const store = new MemoryEventStore();
    const script = () => [
      asks(toolCall("c1", "search", { filters: [{ op: "gt" }] }), toolCall("c2", "tag", { tags: ["a"] })),
      final("Done."),
    ];
    const paused = await runAgent("Go.", scriptedModel(script()), registry(), { store, runId: "r" });
    expect(paused.status).toBe("awaiting_approval");
    const text = JSON.stringify(await store.read("r"));
    const events = parseEventLog("r", JSON.parse(text) as unknown[]);
    expect(replayRun(events).result).toBeNull();
    const resumed = await resumeAgent("r", scriptedModel(script().slice(1)), registry(), {
      store,
      decisions: { c2: { approved: true } },
    });
    expect(resumed.status).toBe("done");
    const contents = resumed.messages.flatMap((message) => (message.role === "tool" ? [message.content] : []));
    expect(contents).toEqual([expect.stringMatching(/^ERROR: argument 'filters\[0\]\.op' must be one of/), '["a"]']);
    const finished = parseEventLog("r", JSON.parse(JSON.stringify(await store.read("r"))) as unknown[]);
    const { runId: _runId, ...outcome } = resumed;
    expect(replayRun(finished).result).toMatchObject(outcome);
  });
});
