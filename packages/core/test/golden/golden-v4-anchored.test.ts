import { describe, expect, it } from "vitest";
import { continueAgent, final, replayRun, resumeAgent, scriptedModel } from "../../src/index.js";
import { makeWeatherRegistry } from "../../src/testing.js";
import { goldenStore, never } from "./golden-store.js";

// A golden log of schema 4, written once and never regenerated: the weather run pruned by retain
// to its anchor, then a second turn logged after it.

describe("golden log v4-anchored", () => {
  it("replays from its anchor through the second turn to its recorded result", async () => {
    const events = await goldenStore().read("v4-anchored");
    expect(events.map((event) => event.type)).toEqual([
      "run.anchored",
      "user.messaged",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
    expect(events[0]).toMatchObject({
      events: 9,
      turns: 1,
      outcome: { status: "done", answer: "It is 86 F in Pune." },
    });
    const { result } = replayRun(events, { runId: "v4-anchored" });
    expect(result).toMatchObject({ status: "done", steps: 5, tokens: 1226, answer: "Delhi is 35 C." });
    expect(result?.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
  });

  it("resume gives the finished run back, and the conversation goes on", async () => {
    const store = goldenStore();
    const { registry } = makeWeatherRegistry();
    expect(await resumeAgent("v4-anchored", never, registry, { store })).toMatchObject({ answer: "Delhi is 35 C." });
    const next = await continueAgent("v4-anchored", "Thanks!", scriptedModel([final("You are welcome.")]), registry, {
      store,
    });
    expect([next.answer, next.steps]).toEqual(["You are welcome.", 6]);
  });
});
