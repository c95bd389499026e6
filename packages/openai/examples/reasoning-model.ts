import { type AgentResult, runAgent, ToolRegistry } from "@agentloop/core";
import { openaiModel } from "@agentloop/openai";
import type OpenAI from "openai";

/**
 * The weather agent on DeepSeek in thinking mode, its text printed as it streams. `client` picks
 * the server: `new OpenAI({ baseURL: "https://api.deepseek.com", apiKey: process.env.DEEPSEEK_API_KEY })`.
 */
export async function weatherOnDeepSeek(client: OpenAI, print: (text: string) => void): Promise<AgentResult> {
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => ({ city, celsius: 30 }),
  );
  const model = openaiModel({
    client,
    model: "deepseek-v4-flash",
    maxTokens: 4096,
    // DeepSeek refuses tool-call history without its reasoning_content (the default field);
    // vLLM, Ollama and LM Studio read it back as "reasoning".
    reasoningField: "reasoning_content",
  });
  // With onEvent the run streams: the adapter is called with onDelta and uses the SDK's stream.
  return runAgent("How hot is Pune in Fahrenheit?", model, registry, {
    tokenBudget: 50_000, // room for maxTokens on every step: the run reserves it before each call
    onEvent: (event) => {
      if (event.type === "text-delta") print(event.text);
    },
  });
}
