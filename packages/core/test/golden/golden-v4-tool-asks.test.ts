import { describe, expect, it } from "vitest";
import { replayRun, resumeAgent, ToolRegistry } from "../../src/index.js";
import { goldenStore, never } from "./golden-store.js";

// A golden log of schema 4, written once and never regenerated: the tool `book` asks which city
// while it runs, the run pauses, and is resumed with the answer {"city":"Pune"}; the call is made
// again with it, and the model answers.

/** The run's tool, which must not run again when the finished run is resumed. */
function registry(made: string[]) {
  const tools = new ToolRegistry();
  tools.register("book", "Books a room in a city the user names.", { type: "object", properties: {} }, async () => {
    made.push("book");
    return "again";
  });
  return tools;
}

describe("golden log v4-tool-asks", () => {
  it("replays to its recorded result: the question, its answer, the call made again", async () => {
    const events = await goldenStore().read("v4-tool-asks");
    expect(events.map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.asked",
      "question.answered",
      "tool.started",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
    expect(events[3]).toMatchObject({ type: "tool.asked", callId: "b1", question: "Which city?" });
    const replay = replayRun(events);
    expect(replay.result).toMatchObject({ status: "done", answer: "Booked two nights in Pune.", steps: 2 });
    const observation = replay.result?.messages.find((message) => message.role === "tool")?.content;
    expect(observation).toMatch(/^\{"booked":"Pune","nights":2\}\n\(book asked the user a question while it ran/);
  });

  it("resumed as it is, gives its result again: no model is called and the tool does not run", async () => {
    const made: string[] = [];
    const store = goldenStore();
    const result = await resumeAgent("v4-tool-asks", never, registry(made), { store });
    expect(result).toMatchObject({ status: "done", answer: "Booked two nights in Pune." });
    expect(made).toEqual([]);
  });
});
