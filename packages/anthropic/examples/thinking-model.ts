import { anthropicModel } from "@agentloop/anthropic";
import { type AgentResult, type Model, runAgent, ToolRegistry } from "@agentloop/core";
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
  // Called with onDelta, the adapter streams: text, thinking and tool input arrive as they are written.
  const streaming: Model = (messages, tools, options) =>
    model(messages, tools, {
      ...options,
      onDelta: (delta) => {
        if (delta.type === "text-delta") print(delta.text);
      },
    });
  // Each reply's thinking blocks are kept in the trace (`reasoning`) and go back first, unchanged.
  return runAgent("How hot is Pune in Fahrenheit?", streaming, registry);
}
