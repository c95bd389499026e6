import assert from "node:assert/strict";
import { type Model, runAgent, scriptedModel } from "@agentloop/core";
import { makeWeatherRegistry, WEATHER_TASK, weatherScript } from "@agentloop/core/testing";

// A cheaper model for the first step, which only has to look the weather up.
const cheap: Model = Object.assign(scriptedModel(weatherScript().slice(0, 1)), { modelName: "cheap" });
const model = scriptedModel(weatherScript().slice(1));
const offered: string[][] = [];
const watching: Model = (messages, tools, options) => {
  offered.push(tools.map((spec) => spec.name));
  return model(messages, tools, options);
};

const { registry } = makeWeatherRegistry();
const result = await runAgent(WEATHER_TASK, watching, registry, {
  // Asked before every model call; what it returns holds for that call only, and is logged.
  prepareStep: ({ step, tokens }) => {
    if (step === 1) return { model: cheap, activeTools: ["get_weather"], toolChoice: "required" };
    if (tokens > 3000) return { toolChoice: "none", system: "Answer now with what you have." };
    return undefined;
  },
});
assert.equal(result.status, "done");
assert.deepEqual(offered, [
  ["get_weather", "c_to_f"],
  ["get_weather", "c_to_f"],
]);
console.log(result.answer);
