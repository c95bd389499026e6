import { describe, expect, it } from "vitest";
import { askUserTool, replayRun, resumeAgent } from "../../src/index.js";
import { pendingRequests } from "../../src/machine.js";
import { makeWeatherRegistry } from "../../src/testing.js";
import { goldenStore, never } from "./golden-store.js";

// A golden log of schema 4, written once and never regenerated: prepareStep offers only ask_user
// in step 1, the model asks which city, the run pauses and is resumed with the answer "Pune";
// step 2 offers only get_weather with a line added to the system prompt; step 3 as the run was set.

function registry() {
  const { registry } = makeWeatherRegistry();
  return registry.add(askUserTool());
}

describe("golden log v4-steering", () => {
  it("replays to its recorded result: each step's settings and the answer as logged", async () => {
    const events = await goldenStore().read("v4-steering");
    expect(events.map((event) => event.type)).toEqual([
      "run.started",
      "step.prepared",
      "model.replied",
      "question.answered",
      "step.prepared",
      "model.replied",
      "tool.started",
      "tool.finished",
      "step.prepared",
      "model.replied",
      "run.finished",
    ]);
    expect(events[0]).toMatchObject({ settings: { prepareStep: true, askTools: [{ name: "ask_user" }] } });
    const { result } = replayRun(events, { runId: "v4-steering" });
    expect(result).toMatchObject({ status: "done", steps: 3, tokens: 618, answer: "It is 30 °C in Pune." });
    expect(result?.messages[3]).toMatchObject({ role: "tool", toolCallId: "q1", content: '"Pune"' });
  });

  it("cut at the question, it waits for the answer; cut after a step's settings, for the model call they prepared", async () => {
    const events = await goldenStore().read("v4-steering");
    const paused = replayRun(events.slice(0, 3)).snapshot;
    expect(paused.value).toEqual({ executingTools: "awaitingInput" });
    expect(pendingRequests(paused)).toMatchObject([{ type: "askUser", question: "Which city?" }]);
    expect(pendingRequests(replayRun(events.slice(0, 5)).snapshot)).toMatchObject([
      { type: "callModel", step: 2, prepared: { activeTools: ["get_weather"], system: "Use Celsius." } },
    ]);
  });

  it("resume gives the finished run back, calling nothing, and never asks prepareStep", async () => {
    const result = await resumeAgent("v4-steering", never, registry(), {
      store: goldenStore(),
      prepareStep: () => {
        throw new Error("prepareStep was asked again");
      },
    });
    expect(result).toMatchObject({ status: "done", steps: 3 });
  });
});
