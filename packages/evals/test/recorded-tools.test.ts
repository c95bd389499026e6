import { asks, final, MemoryEventStore, runAgent, scriptedModel, toolCall } from "@agentloop/core";
import { makeWeatherRegistry, WEATHER_TASK, weatherScript } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { recordedTools } from "../src/index.js";

/** A recorded weather run: its log, and the tool functions that really ran. */
async function recording() {
  const store = new MemoryEventStore();
  const { registry, runs } = makeWeatherRegistry();
  await runAgent(WEATHER_TASK, scriptedModel(weatherScript()), registry, { store, runId: "recorded" });
  return { events: await store.read("recorded"), runs };
}

function toolResults(messages: readonly { role: string; content: unknown }[]): unknown[] {
  return messages.filter((m) => m.role === "tool").map((m) => m.content);
}

describe("recordedTools", () => {
  it("answers each call as the recorded run did, showing the model the same tools, running no function", async () => {
    const { events, runs } = await recording();
    const before = runs.length;
    const tools = recordedTools(events);
    const original = makeWeatherRegistry().registry;
    expect(tools.specs()).toEqual(original.specs());
    const result = await runAgent(WEATHER_TASK, scriptedModel(weatherScript()), tools, {
      system: "A new prompt: answer tersely.",
    });
    expect(result.status).toBe("done");
    expect(toolResults(result.messages)).toEqual(['{"city":"Pune","celsius":30}', "86"]);
    expect(runs.length).toBe(before);
  });

  it("matches calls by tool name and arguments (key order aside), in order, whatever their ids", async () => {
    const { events } = await recording();
    const model = scriptedModel([
      asks(toolCall("x9", "c_to_f", { celsius: 30 }), toolCall("x8", "get_weather", { city: "Pune" })),
      final("86"),
    ]);
    const result = await runAgent(WEATHER_TASK, model, recordedTools(events), { toolConcurrency: 1 });
    expect(toolResults(result.messages)).toEqual(["86", '{"city":"Pune","celsius":30}']);
  });

  it("a call the recording does not have is an ERROR: observation saying so, and the run goes on", async () => {
    const { events } = await recording();
    const model = scriptedModel([
      asks(toolCall("a", "get_weather", { city: "Delhi" })),
      asks(toolCall("b", "get_weather", { city: "Pune" }), toolCall("c", "get_weather", { city: "Pune" })),
      final("done"),
    ]);
    const result = await runAgent(WEATHER_TASK, model, recordedTools(events), { repeatLimit: Infinity });
    const [delhi, pune, again] = toolResults(result.messages);
    expect(delhi).toBe(
      'ERROR: the recording has no answer for get_weather({"city":"Delhi"}): the recorded run made no such call',
    );
    expect(pune).toBe('{"city":"Pune","celsius":30}');
    expect(again).toMatch(
      /^ERROR: the recording has no answer for get_weather\(\{"city":"Pune"\}\): the recorded run made no more such calls/,
    );
    expect(result.status).toBe("done");
  });

  it("replays a recorded error observation as it was", async () => {
    const store = new MemoryEventStore();
    const script = () => [asks(toolCall("a", "get_weather", { city: "Atlantis" })), final("unknown")];
    await runAgent("Atlantis?", scriptedModel(script()), makeWeatherRegistry().registry, { store, runId: "r" });
    const events = await store.read("r");
    const recorded = events.find((event) => event.type === "tool.finished");
    const result = await runAgent("Atlantis?", scriptedModel(script()), recordedTools(events));
    expect(recorded?.type === "tool.finished" && recorded.content).toMatch(/^ERROR: /);
    expect(toolResults(result.messages)).toEqual([recorded?.type === "tool.finished" ? recorded.content : ""]);
  });
});
