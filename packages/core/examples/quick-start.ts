import { asks, final, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";

const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: city === "Pune" ? 30 : 20 }),
);

// A scripted model for the example; any (messages, tools, { signal }) => reply function works.
const model = scriptedModel([asks(toolCall("c1", "get_weather", { city: "Pune" })), final("It is 30 °C in Pune.")]);

const result = await runAgent("How hot is Pune?", model, registry, { maxSteps: 8, tokenBudget: 4000 });
console.log(result.status, result.answer, result.steps, result.tokens);
// done It is 30 °C in Pune. 2 <tokens spent>
