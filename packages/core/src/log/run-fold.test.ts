import { describe, expect, it } from "vitest";
import { continueAgent } from "../run/api/resume.js";
import { runAgent } from "../run/api/run-agent.js";
import { asks, final, scriptedModel, toolCall } from "../testing/index.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { EventLogError } from "./event-log-error.js";
import { MemoryEventStore } from "./event-store.js";
import { RunFold } from "./run-fold.js";

async function conversation() {
  const registry = new ToolRegistry();
  registry.register("look", "Looks.", { type: "object" }, () => "seen");
  const store = new MemoryEventStore();
  const model = scriptedModel([asks(toolCall("a", "look")), final("one"), final("two")]);
  await runAgent("t", model, registry, { store, runId: "c" });
  await continueAgent("c", "and?", model, registry, { store });
  return store.read("c");
}

describe("RunFold", () => {
  // Regression test; before the change: core folded a log only as a whole (`foldEvents`), so the CLI kept a
  // copy of the fold, its checks and their wording, to follow a log event by event. Expected: core folds
  // stored events one at a time and tells where the run stands after each.
  it("folds a log one event at a time and tells where the run stands after each", async () => {
    const events = await conversation();
    const fold = new RunFold({ runId: "c" });
    const seen = events.map((event) => {
      fold.apply(event);
      const { state, steps, running } = fold.position;
      return [event.type, state, steps, running.map((call) => call.id), fold.interrupted.size, fold.turn];
    });
    expect(seen).toEqual([
      ["run.started", "callingModel", 0, [], 0, 1],
      ["model.replied", "executingTools.runningTools", 1, ["a"], 0, 1],
      ["tool.started", "executingTools.runningTools", 1, ["a"], 1, 1],
      ["tool.finished", "callingModel", 1, [], 0, 1],
      ["model.replied", "done", 2, [], 0, 1],
      ["run.finished", "done", 2, [], 0, 1],
      ["user.messaged", "callingModel", 2, [], 0, 2],
      ["model.replied", "done", 3, [], 0, 2],
      ["run.finished", "done", 3, [], 0, 2],
    ]);
    expect(fold.result).toMatchObject({ status: "done", answer: "two", steps: 3 });
    expect(fold.finished).toBe(true);
  });

  it("refuses an event that does not fit, naming the run and the position, and folds nothing of it", async () => {
    const events = await conversation();
    const fold = new RunFold({ runId: "c" });
    for (const event of events.slice(0, 2)) fold.apply(event);
    const early = events[3];
    if (early === undefined) throw new Error("the log is too short");
    expect(() => fold.apply(early)).toThrow(EventLogError);
    expect(() => fold.apply(early)).toThrow(
      "run 'c': event 2 (tool.finished) has no tool.started for call 'a' before it",
    );
    expect(fold.length).toBe(2);
    expect(fold.endsBefore(events[2] ?? early)).toBe(false);
  });
});
