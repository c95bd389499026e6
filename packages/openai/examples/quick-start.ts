import { runAgent, ToolRegistry } from "@agentloop/core";
import { openaiModel } from "@agentloop/openai";
import OpenAI from "openai";

const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: 30 }),
);

const model = openaiModel({
  client: new OpenAI(), // reads OPENAI_API_KEY and OPENAI_BASE_URL
  model: "gpt-4.1-mini",
  maxTokens: 1024,
  temperature: 0,
});
const result = await runAgent("How hot is Pune?", model, registry);
console.log(result.status, result.answer);
