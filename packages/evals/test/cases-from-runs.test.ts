import { asks, final, MemoryEventStore, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { makeWeatherRegistry, WEATHER_TASK, weatherScript } from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { casesFromRuns, evaluate, exactAnswer, recordedTools, recordingOf, toolCalls } from "../src/index.js";

async function productionStore() {
  const store = new MemoryEventStore();
  await runAgent(WEATHER_TASK, scriptedModel(weatherScript()), makeWeatherRegistry().registry, {
    store,
    runId: "good",
  });
  const loop = scriptedModel([asks(toolCall("c1", "get_weather", { city: "Pune" }))]);
  await runAgent("Loop", loop, makeWeatherRegistry().registry, { store, runId: "limited", maxSteps: 1 });
  const output = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;
  await runAgent("Where?", scriptedModel([final('{"city":"Pune"}')]), new ToolRegistry(), {
    store,
    runId: "typed",
    output,
  });
  return store;
}

describe("casesFromRuns", () => {
  it("turns runs that ended done into cases: task, answer or output as expected, the log recorded", async () => {
    const store = await productionStore();
    const cases = await casesFromRuns(store);
    expect(cases.map((c) => [c.id, c.task, c.expected])).toEqual([
      ["good", WEATHER_TASK, "It is 86 F in Pune."],
      ["typed", "Where?", { city: "Pune" }],
    ]);
    expect(recordingOf(cases[0] as (typeof cases)[0])).toEqual(await store.read("good"));
  });

  it("keeps runs started since a date, or those a filter keeps", async () => {
    const store = await productionStore();
    expect(await casesFromRuns(store, { since: new Date(Date.now() + 60_000) })).toEqual([]);
    const all = await casesFromRuns(store, { filter: () => true });
    expect(all.map((c) => c.id)).toEqual(["good", "limited", "typed"]);
  });

  it("yesterday's good runs become a regression suite replayed with their recorded tools", async () => {
    const store = await productionStore();
    const cases = (await casesFromRuns(store)).filter((c) => c.id === "good");
    const report = await evaluate({
      name: "from runs",
      cases,
      run: (c, context) => runAgent(c.task, scriptedModel(weatherScript()), recordedTools(recordingOf(c)), context),
      scorers: [exactAnswer(), toolCalls(["get_weather", "c_to_f"])],
    });
    expect(report.cases[0]).toMatchObject({ passed: true, scores: { exactAnswer: 1, toolCalls: 1 } });
  });
});
