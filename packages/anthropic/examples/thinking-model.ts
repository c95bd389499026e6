import { anthropicModel } from "@agentloop/anthropic";
import { type AgentResult, runAgent, ToolRegistry } from "@agentloop/core";
import type Anthropic from "@anthropic-ai/sdk";

/** The weather agent on a thinking model, its text printed as it streams; `client` picks the server. */
export async function weatherOnThinkingModel(client: Anthropic, print: (text: string) => void): Promise<AgentResult> {
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => ({ city, celsius: 30 }),
  );
  const model = anthropicModel({
    client,
    model: "claude-sonnet-4-5",
    maxTokens: 4096, // thinking counts against it: budget_tokens must be less
    thinking: { type: "enabled", budget_tokens: 2048 },
  });
  // Each reply's thinking blocks are kept in the trace (`reasoning`) and go back first, unchanged.
  // With onEvent the run streams: the adapter is called with onDelta and uses the SDK's stream.
  return runAgent("How hot is Pune in Fahrenheit?", model, registry, {
    tokenBudget: 50_000, // room for maxTokens on every step: the run reserves it before each call
    onEvent: (event) => {
      if (event.type === "text-delta") print(event.text);
    },
  });
}
