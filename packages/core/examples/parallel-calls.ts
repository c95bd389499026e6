import assert from "node:assert/strict";
import { asks, final, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";

// A slow lookup that notes how many of its calls are in flight at once.
let inFlight = 0;
let most = 0;
const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  async ({ city }: { city: string }) => {
    most = Math.max(most, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, city === "Pune" ? 100 : 50));
    inFlight -= 1;
    return { city, celsius: city === "Pune" ? 30 : 35 };
  },
);
const script = () => [
  asks(
    toolCall("p", "get_weather", { city: "Pune" }),
    toolCall("d", "get_weather", { city: "Delhi" }),
    toolCall("m", "get_weather", { city: "Mumbai" }),
  ),
  final("Delhi and Mumbai are hotter than Pune."),
];

// The calls of one reply run at once by default.
const result = await runAgent("Which city is hottest?", scriptedModel(script()), registry);
assert.equal(most, 3);

// Pune's call finished last, yet the tool messages are in call order: p, d, m.
const ids = result.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []));
assert.deepEqual(ids, ["p", "d", "m"]);

// toolConcurrency caps how many run together; 1 runs them one at a time, in call order.
most = 0;
await runAgent("Which city is hottest?", scriptedModel(script()), registry, { toolConcurrency: 1 });
assert.equal(most, 1);
