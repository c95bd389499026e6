import { describe, expect, it } from "vitest";
import { continueAgent, MemoryEventStore, resumeAgent, runAgent } from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";
import { asks, final, scriptedModel, toolCall } from "../../src/testing.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

function tools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("look", "Looks.", { type: "object" }, () => "seen");
  registry.register("send", "Sends.", { type: "object" }, () => "sent", { needsApproval: true });
  return registry;
}

describe("onLogged", () => {
  // Regression test; before the change: a view that folds a live run's log had to rebuild log events from
  // the stream events and resolve the run's settings a second time to invent its run.started. Expected: the
  // run tells each event as it is logged, stamped as stored, run.started and run.finished included.
  it("hears every event of the log as it is appended, in order, as stored", async () => {
    const store = new MemoryEventStore();
    const heard: StoredEvent[] = [];
    const model = scriptedModel([asks(toolCall("a", "look")), final("done")]);
    await runAgent("t", model, tools(), { store, runId: "r", onLogged: (event) => heard.push(event) });
    expect(heard).toEqual(await store.read("r"));
    expect(heard.map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
  });

  it("hears what a resumed run and a conversation's next turn log, after what was logged before", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([asks(toolCall("s", "send")), final("sent"), final("hi")]);
    await runAgent("t", model, tools(), { store, runId: "p" });
    const before = (await store.read("p")).length;
    const heard: StoredEvent[] = [];
    const onLogged = (event: StoredEvent) => heard.push(event);
    await resumeAgent("p", model, tools(), { store, decisions: { s: { approved: true } }, onLogged });
    await continueAgent("p", "and?", model, tools(), { store, onLogged });
    expect(heard).toEqual((await store.read("p")).slice(before));
    expect(heard.map((event) => event.type)).toContain("user.messaged");
  });

  it("fails the run with a listener's error, and refuses one that is not a function", async () => {
    const store = new MemoryEventStore();
    const loud = () => {
      throw new Error("view broke");
    };
    await expect(runAgent("t", scriptedModel([final("x")]), tools(), { store, onLogged: loud })).rejects.toThrow(
      "view broke",
    );
    const odd = { store, onLogged: "yes" as unknown as () => void };
    await expect(runAgent("t", scriptedModel([final("x")]), tools(), odd)).rejects.toThrow(
      "onLogged must be a function",
    );
  });
});
