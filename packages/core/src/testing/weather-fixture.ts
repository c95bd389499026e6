import type { ModelReply } from "../data/index.js";
import { ToolRegistry } from "../tools/index.js";
import { asks, final, toolCall } from "./scripted-model.js";

// The spec's weather agent, for tests of anything built on agentloop: two tools, a question and the
// replies a model gives to answer it. One fixture for every package's tests.

/** The question every weather scenario asks. */
export const WEATHER_TASK = "How hot is Pune in Fahrenheit?";

const TEMPERATURES_C: ReadonlyMap<string, number> = new Map([
  ["Pune", 30],
  ["Delhi", 35],
]);

/** One real execution of a tool function: its name and the argument it got. */
export type ToolRun = readonly [tool: string, arg: unknown];

/** A fresh registry with `get_weather` and `c_to_f`, and the log of every function that really ran. */
export function makeWeatherRegistry(): { registry: ToolRegistry; runs: ToolRun[] } {
  const runs: ToolRun[] = [];
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius. Use it before any weather answer.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => {
      runs.push(["get_weather", city]);
      const celsius = TEMPERATURES_C.get(city);
      if (celsius === undefined) throw new Error(`unknown city '${city}'`);
      return { city, celsius };
    },
  );
  registry.register(
    "c_to_f",
    "Convert Celsius to Fahrenheit. Use it for every conversion.",
    { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
    ({ celsius }: { celsius: number }) => {
      runs.push(["c_to_f", celsius]);
      return (celsius * 9) / 5 + 32;
    },
  );
  return { registry, runs };
}

/** The happy path: a thought with a tool call, a second tool call, then the answer. A new array each time. */
export function weatherScript(): ModelReply[] {
  return [
    { content: "I will look up Pune first.", toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })] },
    asks(toolCall("c2", "c_to_f", { celsius: 30 })),
    final("It is 86 F in Pune."),
  ];
}
