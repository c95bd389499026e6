import { anthropicModel } from "@agentloop/anthropic";
import { runAgent, ToolRegistry } from "@agentloop/core";
import Anthropic from "@anthropic-ai/sdk";

const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: 30 }),
);

const model = anthropicModel({
  client: new Anthropic(), // reads ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL)
  model: "claude-sonnet-4-5",
  maxTokens: 1024,
});
const result = await runAgent("How hot is Pune?", model, registry);
console.log(result.status, result.answer);
