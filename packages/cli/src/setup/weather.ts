import { asks, final, type ModelReply, ToolRegistry, toolCall } from "../core-api.js";

/** The demo's task. */
export const WEATHER_TASK = "How hot is Pune in Fahrenheit?";

const CELSIUS: Readonly<Record<string, number>> = { Pune: 30, Delhi: 35 };

/** The spec's two weather tools; `runs` logs every real execution. */
export function weatherTools(): { registry: ToolRegistry; runs: string[] } {
  const runs: string[] = [];
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius. Use it before any weather answer.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => {
      runs.push(`get_weather(${city})`);
      const celsius = CELSIUS[city];
      if (celsius === undefined) throw new Error(`no weather station in '${city}'`);
      return { city, celsius };
    },
  );
  registry.register(
    "c_to_f",
    "Convert Celsius to Fahrenheit. Use it for every conversion.",
    { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
    ({ celsius }: { celsius: number }) => {
      runs.push(`c_to_f(${celsius})`);
      return (celsius * 9) / 5 + 32;
    },
  );
  return { registry, runs };
}

/** What a model would say for the weather task: text with a tool call, a second call, the answer. */
export function weatherScript(): ModelReply[] {
  return [
    { content: "I will look up Pune first.", toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })] },
    asks(toolCall("c2", "c_to_f", { celsius: 30 })),
    final("It is 86 F in Pune."),
  ];
}
