import { asks, final, type Model, type ModelReply, ToolRegistry, toolCall } from "@agentloop/core";

/** The spec's weather tools; `runs.count` counts real executions so each bench can check them. */
export function weatherRegistry(): { registry: ToolRegistry; runs: { count: number } } {
  const runs = { count: 0 };
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => {
      runs.count++;
      return { city, celsius: 30 };
    },
  );
  return { registry, runs };
}

/**
 * A stateless fake model: it asks for the weather until the list holds `toolSteps` tool results,
 * then answers. It reads only the list's length, so it costs the same in every harness.
 */
export function weatherModel(toolSteps: number): Model {
  const ask = asks(toolCall("c", "get_weather", { city: "Pune" }));
  const answer = final("It is 30 C in Pune.");
  return (messages): ModelReply => ((messages.length - 2) / 2 < toolSteps ? ask : answer);
}
